/** `step_sessions` on Postgres (migration 7): the same functions as ../../sql/step-sessions.ts. */
import type { StepSessionQueries, StepSessionRow } from '../../sql/step-sessions.js';
import type { PgSession } from '../session.js';

export function pgStepSessionQueries(s: PgSession): StepSessionQueries {
  return {
    insert: (r) => s.write('INSERT INTO step_sessions (session_id, run_id, step, agent, created_at) VALUES ($1, $2, $3, $4, $5)', [r.session_id, r.run_id, r.step, r.agent, r.created_at]),
    ofStep: (runId, step) => s.get<StepSessionRow>('SELECT * FROM step_sessions WHERE run_id = $1 AND step = $2', [runId, step]),
    ofRun: (runId) => s.all<StepSessionRow>('SELECT * FROM step_sessions WHERE run_id = $1 ORDER BY created_at, step', [runId]),
    ofSession: (sessionId) => s.get<StepSessionRow>('SELECT * FROM step_sessions WHERE session_id = $1', [sessionId]),
  };
}
