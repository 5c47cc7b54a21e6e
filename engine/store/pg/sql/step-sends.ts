/** `send` steps' deliveries on Postgres, shared by the nodes: the same functions as ../../sql/step-sends.ts. */
import type { StepSendQueries, StepSendRow } from '../../sql/step-sends.js';
import type { PgSession } from '../session.js';

export function pgStepSendQueries(s: PgSession): StepSendQueries {
  return {
    begin: (row) => s.count(
      `INSERT INTO step_sends (run_id, step, adapter, target, state, bytes, sha256, created_at, updated_at) VALUES ($1, $2, $3, $4, 'sending', $5, $6, $7, $7)
       ON CONFLICT (run_id, step) DO UPDATE SET adapter = excluded.adapter, target = excluded.target, state = 'sending', bytes = excluded.bytes,
         sha256 = excluded.sha256, error = NULL, updated_at = excluded.updated_at WHERE step_sends.state = 'refused'`,
      [row.runId, row.step, row.adapter, row.target, row.bytes, row.sha256, row.at]) === 1,
    finish: (runId, step, state, messageId, error, at) => s.write(
      "UPDATE step_sends SET state = $1, message_id = $2, error = $3, updated_at = $4 WHERE run_id = $5 AND step = $6 AND state = 'sending'",
      [state, messageId, error, at, runId, step]),
    ofStep: (runId, step) => s.get<StepSendRow>('SELECT * FROM step_sends WHERE run_id = $1 AND step = $2', [runId, step]),
    ofRun: (runId) => s.all<StepSendRow>('SELECT * FROM step_sends WHERE run_id = $1 ORDER BY id', [runId]),
  };
}
