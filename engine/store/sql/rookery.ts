/**
 * The Rookery's drafts (`rookery_drafts`, migration 9): one typed function per query,
 * positional parameters, typed rows. See engine/rookery/rookery-service.ts.
 */
import type { Database } from 'better-sqlite3';
import type { RookeryStage } from '../../rookery/types.js';

/** A row of `rookery_drafts` as stored. */
export interface RookeryDraftRow {
  id: string;
  session_id: string | null;
  /** JSON HordeDraft. */
  draft: string;
  stage: RookeryStage;
  birth_sha256: string | null;
  born_horde_id: string | null;
  /** JSON BirthResult. */
  born_result: string | null;
  born_at: number | null;
  created_at: number;
  updated_at: number;
}

export function rookeryQueries(db: Database) {
  const insert = db.prepare<[id: string, sessionId: string | null, draft: string, stage: RookeryStage, createdAt: number, updatedAt: number]>(
    'INSERT INTO rookery_drafts (id, session_id, draft, stage, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)');
  const byId = db.prepare<[id: string], RookeryDraftRow>('SELECT * FROM rookery_drafts WHERE id = ?');
  const bySession = db.prepare<[sessionId: string], RookeryDraftRow>('SELECT * FROM rookery_drafts WHERE session_id = ?');
  const list = db.prepare<[limit: number], RookeryDraftRow>('SELECT * FROM rookery_drafts ORDER BY updated_at DESC, id DESC LIMIT ?');
  const setDraft = db.prepare<[draft: string, stage: RookeryStage, at: number, id: string]>('UPDATE rookery_drafts SET draft = ?, stage = ?, updated_at = ? WHERE id = ?');
  const setStage = db.prepare<[stage: RookeryStage, id: string]>('UPDATE rookery_drafts SET stage = ? WHERE id = ?');
  const birthStarted = db.prepare<[sha: string, at: number, id: string]>('UPDATE rookery_drafts SET birth_sha256 = ?, updated_at = ? WHERE id = ?');
  const born = db.prepare<[hordeId: string, result: string, bornAt: number, updatedAt: number, id: string]>(
    "UPDATE rookery_drafts SET born_horde_id = ?, born_result = ?, born_at = ?, stage = 'born', updated_at = ? WHERE id = ?");
  return {
    insert: (id: string, sessionId: string | null, draft: string, stage: RookeryStage, at: number): void => void insert.run(id, sessionId, draft, stage, at, at),
    byId: (id: string): RookeryDraftRow | undefined => byId.get(id),
    bySession: (sessionId: string): RookeryDraftRow | undefined => bySession.get(sessionId),
    /** Newest change first. */
    list: (limit: number): RookeryDraftRow[] => list.all(limit),
    /** A new draft (JSON) and the stage it is at. */
    setDraft: (id: string, draft: string, stage: RookeryStage, at: number): void => void setDraft.run(draft, stage, at, id),
    /** The stage after a check (the draft unchanged). */
    setStage: (id: string, stage: RookeryStage): void => void setStage.run(stage, id),
    /** A birth of the draft content hashed `sha` is about to write its folder. */
    birthStarted: (id: string, sha: string, at: number): void => void birthStarted.run(sha, at, id),
    /** The folder was written: what the birth answered. */
    born: (id: string, hordeId: string, result: string, at: number): void => void born.run(hordeId, result, at, at, id),
  };
}

export type RookeryQueries = ReturnType<typeof rookeryQueries>;
