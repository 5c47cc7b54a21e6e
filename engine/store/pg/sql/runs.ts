/** The runs projection on Postgres: the same functions as ../../sql/runs.ts. */
import type { RunState } from '../../../../actors/index.js';
import type { RunListFilter, RunReads, RunRecord, RunWrites } from '../../sql/runs.js';
import { whereOf } from '../../where.js';
import type { PgSession } from '../session.js';

/** SQLite's `?` placeholders as Postgres's `$1, $2, …` (for statements built from `whereOf`; none has a `?` in a literal). */
function numbered(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

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
    unfinishedIds: () => s.all<{ id: string }>("SELECT id FROM runs WHERE state IN ('queued', 'running') ORDER BY created_at").map((r) => r.id),
    countByState: () => s.all<{ state: RunState; n: number }>('SELECT state, count(*)::integer AS n FROM runs GROUP BY state'),
    unfinishedTriggerRuns: () => s.all<Pick<RunRecord, 'id' | 'horde_id' | 'provenance'>>(
      "SELECT id, horde_id, provenance FROM runs WHERE provenance LIKE 'trigger:%' AND state IN ('queued', 'running', 'awaiting_input') ORDER BY created_at"),
    list,
  };
}

export function pgRunWrites(s: PgSession): RunWrites {
  return {
    insert: (r) => s.write(
      `INSERT INTO runs (id, horde_id, horde_hash, state, provenance, input, created_at, updated_at, last_seq)
       VALUES ($1, $2, $3, 'queued', $4, $5, $6, $7, $8)`,
      [r.id, r.hordeId, r.hordeHash, r.provenance, r.input, r.at, r.at, r.seq]),
    settle: (r) => s.write(
      'UPDATE runs SET state = $1, updated_at = $2, last_seq = $3, finished_at = $4, error_code = $5, error = $6 WHERE id = $7',
      [r.state, r.at, r.lastSeq, r.finishedAt, r.errorCode, r.error, r.id]),
    progress: (id, at, lastSeq) => s.write('UPDATE runs SET updated_at = $1, last_seq = $2 WHERE id = $3', [at, lastSeq, id]),
  };
}
