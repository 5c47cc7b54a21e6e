/** The runs projection on Postgres: the same functions as ../../sql/runs.ts. */
import type { RunState } from '../../../../actors/index.js';
import type { RunListFilter, RunReads, RunRecord, RunWrites } from '../../sql/runs.js';
import { numbered, whereOf } from '../../where.js';
import type { Bulk, PgSession } from '../session.js';

const byId = (row: readonly unknown[]): string => row[0] as string;

/** A run's row as the commit that creates it leaves it. */
const INSERT: Bulk = {
  rank: 10,
  sql: `INSERT INTO runs (id, horde_id, horde_hash, state, provenance, input, created_at, updated_at, last_seq, finished_at, error_code, error)
        SELECT t.id, t.horde_id, t.horde_hash, t.state, t.provenance, t.input, t.at, t.at, t.last_seq, t.finished_at, t.error_code, t.error
        FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::integer[], $9::bigint[], $10::text[], $11::text[])
          AS t(id, horde_id, horde_hash, state, provenance, input, at, last_seq, finished_at, error_code, error)`,
};

/** A run's new state after a commit's events of it (the committer writes each run's row once per commit). */
const SETTLE: Bulk = {
  rank: 11,
  key: byId,
  sql: `UPDATE runs SET state = t.state, updated_at = t.at, last_seq = t.last_seq, finished_at = t.finished_at, error_code = t.error_code, error = t.error
        FROM unnest($1::text[], $2::text[], $3::bigint[], $4::integer[], $5::bigint[], $6::text[], $7::text[]) AS t(id, state, at, last_seq, finished_at, error_code, error)
        WHERE runs.id = t.id`,
};

/** A commit that left the run's state as it was (never moves anything back). */
const PROGRESS: Bulk = {
  rank: 12,
  key: byId,
  sql: `UPDATE runs SET updated_at = GREATEST(runs.updated_at, t.at), last_seq = GREATEST(runs.last_seq, t.last_seq)
        FROM unnest($1::text[], $2::bigint[], $3::integer[]) AS t(id, at, last_seq)
        WHERE runs.id = t.id`,
};

export function pgRunReads(s: PgSession): RunReads {
  const list = (f: RunListFilter): RunRecord[] => {
    const where = whereOf([
      f.state === undefined ? undefined : ['state = ?', f.state],
      f.hordeId === undefined ? undefined : ['horde_id = ?', f.hordeId],
      f.beforeRunId === undefined ? undefined : ['(created_at, id) < (SELECT created_at, id FROM runs WHERE id = ?)', f.beforeRunId],
    ]);
    return s.all<RunRecord>(numbered(`SELECT * FROM runs ${where.sql} ORDER BY created_at DESC, id DESC LIMIT ?`), [...where.params, f.limit]);
  };
  return {
    byId: (id) => s.get<RunRecord>('SELECT * FROM runs WHERE id = $1', [id]),
    idByProvenance: (provenance) => s.get<{ id: string }>('SELECT id FROM runs WHERE provenance = $1 ORDER BY created_at LIMIT 1', [provenance])?.id,
    unfinishedIds: () => s.all<{ id: string }>("SELECT id FROM runs WHERE state IN ('queued', 'running') ORDER BY created_at").map((r) => r.id),
    countByState: () => s.all<{ state: RunState; n: number }>('SELECT state, count(*)::integer AS n FROM runs GROUP BY state'),
    unfinishedTriggerRuns: () => s.all<Pick<RunRecord, 'id' | 'horde_id' | 'provenance'>>(
      "SELECT id, horde_id, provenance FROM runs WHERE provenance LIKE 'trigger:%' AND state IN ('queued', 'running', 'awaiting_input') ORDER BY created_at"),
    list,
  };
}

export function pgRunWrites(s: PgSession): RunWrites {
  return {
    insert: (r) => s.writeRow(INSERT, [r.id, r.hordeId, r.hordeHash, r.state, r.provenance, r.input, r.at, r.lastSeq, r.finishedAt, r.errorCode, r.error]),
    settle: (r) => s.writeRow(SETTLE, [r.id, r.state, r.at, r.lastSeq, r.finishedAt, r.errorCode, r.error]),
    progress: (id, at, lastSeq) => s.writeRow(PROGRESS, [id, at, lastSeq]),
  };
}
