/** The step_attempts projection on Postgres: the same functions as ../../sql/attempts.ts. */
import type { AttemptReads, AttemptRecord, AttemptWrites } from '../../sql/attempts.js';
import type { PgSession } from '../session.js';

export function pgAttemptReads(s: PgSession): AttemptReads {
  return { ofRun: (runId) => s.all<AttemptRecord>('SELECT * FROM step_attempts WHERE run_id = $1 ORDER BY started_at, step, attempt', [runId]) };
}

export function pgAttemptWrites(s: PgSession): AttemptWrites {
  return {
    start: (runId, step, attempt, at) => s.write(
      "INSERT INTO step_attempts (run_id, step, attempt, state, started_at) VALUES ($1, $2, $3, 'running', $4)", [runId, step, attempt, at]),
    spawned: (runId, step, attempt, pgid, token) => s.write(
      'UPDATE step_attempts SET pgid = $1, token = $2 WHERE run_id = $3 AND step = $4 AND attempt = $5', [pgid, token, runId, step, attempt]),
    finish: (a) => s.write(
      `UPDATE step_attempts SET state = $1, finished_at = $2, duration_ms = $3, artifact = $4, summary = $5, error_code = $6, error = $7
       WHERE run_id = $8 AND step = $9 AND attempt = $10`,
      [a.state, a.at, a.durationMs, a.artifact, a.summary, a.errorCode, a.error, a.runId, a.step, a.attempt]),
    interrupt: (runId, step, attempt, at) => s.write(
      "UPDATE step_attempts SET state = 'interrupted', finished_at = $1 WHERE run_id = $2 AND step = $3 AND attempt = $4", [at, runId, step, attempt]),
    cancelRunning: (runId, at) => s.write("UPDATE step_attempts SET state = 'cancelled', finished_at = $1 WHERE run_id = $2 AND state = 'running'", [at, runId]),
  };
}
