/** The step_attempts projection on Postgres: the same functions as ../../sql/attempts.ts. */
import type { AttemptReads, AttemptRecord, AttemptWrites } from '../../sql/attempts.js';
import type { Bulk, PgSession } from '../session.js';

/** An attempt's row is started, spawned, then finished or interrupted, and cancelled with its run: the ranks keep that order within a commit. */
const ROW = 'step_attempts.run_id = t.run_id AND step_attempts.step = t.step AND step_attempts.attempt = t.attempt';
const byAttempt = (row: readonly unknown[]): string => `${row[0] as string}\u0000${row[1] as string}\u0000${row[2] as number}`;

const START: Bulk = {
  rank: 20,
  sql: `INSERT INTO step_attempts (run_id, step, attempt, state, started_at)
        SELECT t.run_id, t.step, t.attempt, 'running', t.at FROM unnest($1::text[], $2::text[], $3::integer[], $4::bigint[]) AS t(run_id, step, attempt, at)`,
};
const SPAWNED: Bulk = {
  rank: 21,
  key: byAttempt,
  sql: `UPDATE step_attempts SET pgid = t.pgid, token = t.token
        FROM unnest($1::text[], $2::text[], $3::integer[], $4::integer[], $5::text[]) AS t(run_id, step, attempt, pgid, token) WHERE ${ROW}`,
};
const FINISH: Bulk = {
  rank: 22,
  key: byAttempt,
  sql: `UPDATE step_attempts SET state = t.state, finished_at = t.at, duration_ms = t.duration_ms, artifact = t.artifact, summary = t.summary, error_code = t.error_code, error = t.error
        FROM unnest($1::text[], $2::text[], $3::integer[], $4::text[], $5::bigint[], $6::bigint[], $7::text[], $8::text[], $9::text[], $10::text[])
          AS t(run_id, step, attempt, state, at, duration_ms, artifact, summary, error_code, error) WHERE ${ROW}`,
};
const INTERRUPT: Bulk = {
  rank: 23,
  key: byAttempt,
  sql: `UPDATE step_attempts SET state = 'interrupted', finished_at = t.at
        FROM unnest($1::text[], $2::text[], $3::integer[], $4::bigint[]) AS t(run_id, step, attempt, at) WHERE ${ROW}`,
};
const CANCEL_RUNNING: Bulk = {
  rank: 24,
  key: (row) => row[0] as string,
  sql: `UPDATE step_attempts SET state = 'cancelled', finished_at = t.at
        FROM unnest($1::text[], $2::bigint[]) AS t(run_id, at) WHERE step_attempts.run_id = t.run_id AND step_attempts.state = 'running'`,
};

export function pgAttemptReads(s: PgSession): AttemptReads {
  return { ofRun: (runId) => s.all<AttemptRecord>('SELECT * FROM step_attempts WHERE run_id = $1 ORDER BY started_at, step, attempt', [runId]) };
}

export function pgAttemptWrites(s: PgSession): AttemptWrites {
  return {
    start: (runId, step, attempt, at) => s.writeRow(START, [runId, step, attempt, at]),
    spawned: (runId, step, attempt, pgid, token) => s.writeRow(SPAWNED, [runId, step, attempt, pgid, token]),
    finish: (a) => s.writeRow(FINISH, [a.runId, a.step, a.attempt, a.state, a.at, a.durationMs, a.artifact, a.summary, a.errorCode, a.error]),
    interrupt: (runId, step, attempt, at) => s.writeRow(INTERRUPT, [runId, step, attempt, at]),
    cancelRunning: (runId, at) => s.writeRow(CANCEL_RUNNING, [runId, at]),
  };
}
