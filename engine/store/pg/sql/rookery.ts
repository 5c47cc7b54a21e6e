/**
 * The Rookery's drafts on Postgres (`rookery_drafts`, migration 8): the same functions as
 * ../../sql/rookery.ts, so a draft saved on one node is listed, opened and edited on another.
 */
import type { RookeryDraftRow, RookeryQueries } from '../../sql/rookery.js';
import type { PgSession } from '../session.js';

export function pgRookeryQueries(s: PgSession): RookeryQueries {
  return {
    insert: (id, sessionId, draft, stage, at) => s.write(
      'INSERT INTO rookery_drafts (id, session_id, draft, stage, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $5)', [id, sessionId, draft, stage, at]),
    byId: (id) => s.get<RookeryDraftRow>('SELECT * FROM rookery_drafts WHERE id = $1', [id]),
    bySession: (sessionId) => s.get<RookeryDraftRow>('SELECT * FROM rookery_drafts WHERE session_id = $1', [sessionId]),
    list: (limit) => s.all<RookeryDraftRow>('SELECT * FROM rookery_drafts ORDER BY updated_at DESC, id DESC LIMIT $1', [limit]),
    setDraft: (id, draft, stage, at) => s.write('UPDATE rookery_drafts SET draft = $1, stage = $2, updated_at = $3 WHERE id = $4', [draft, stage, at, id]),
    setStage: (id, stage) => s.write('UPDATE rookery_drafts SET stage = $1 WHERE id = $2', [stage, id]),
    birthStarted: (id, sha, at) => s.write('UPDATE rookery_drafts SET birth_sha256 = $1, updated_at = $2 WHERE id = $3', [sha, at, id]),
    born: (id, hordeId, result, at) => s.write(
      "UPDATE rookery_drafts SET born_horde_id = $1, born_result = $2, born_at = $3, stage = 'born', updated_at = $3 WHERE id = $4", [hordeId, result, at, id]),
  };
}
