/** `mcp_call` steps' answers on Postgres, shared by the nodes: the same functions as ../../sql/step-calls.ts. */
import type { StepCallQueries, StepCallRow } from '../../sql/step-calls.js';
import type { PgSession } from '../session.js';

export function pgStepCallQueries(s: PgSession): StepCallQueries {
  return {
    record: (r) => s.write(
      `INSERT INTO step_calls (run_id, step, attempt, tool, args_sha256, content, structured, from_attempt, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (run_id, step, attempt) DO NOTHING`,
      [r.runId, r.step, r.attempt, r.tool, r.argsSha256, r.content, r.structured, r.fromAttempt, r.at]),
    latestBefore: (runId, step, attempt) => s.get<StepCallRow>(
      'SELECT * FROM step_calls WHERE run_id = $1 AND step = $2 AND attempt < $3 ORDER BY attempt DESC LIMIT 1', [runId, step, attempt]),
    ofRun: (runId) => s.all<StepCallRow>('SELECT * FROM step_calls WHERE run_id = $1 ORDER BY id', [runId]),
  };
}
