/**
 * `step_sessions`: the chat session an `agent` step runs its turn in (migration 13). One
 * typed function per query, positional parameters, typed rows (as events.ts).
 */
import type { Database } from 'better-sqlite3';

export interface StepSessionRow {
  session_id: string;
  run_id: string;
  step: string;
  agent: string;
  created_at: number;
}

/** `step_sessions`' queries, on SQLite (here) or Postgres (store/pg/sql/step-sessions.ts). */
export interface StepSessionQueries {
  insert(row: StepSessionRow): void;
  ofStep(runId: string, step: string): StepSessionRow | undefined;
  ofRun(runId: string): StepSessionRow[];
  ofSession(sessionId: string): StepSessionRow | undefined;
}

export function stepSessionQueries(db: Database): StepSessionQueries {
  const insert = db.prepare<[sessionId: string, runId: string, step: string, agent: string, at: number]>(
    'INSERT INTO step_sessions (session_id, run_id, step, agent, created_at) VALUES (?, ?, ?, ?, ?)');
  const ofStep = db.prepare<[runId: string, step: string], StepSessionRow>('SELECT * FROM step_sessions WHERE run_id = ? AND step = ?');
  const ofRun = db.prepare<[runId: string], StepSessionRow>('SELECT * FROM step_sessions WHERE run_id = ? ORDER BY created_at, step');
  const ofSession = db.prepare<[sessionId: string], StepSessionRow>('SELECT * FROM step_sessions WHERE session_id = ?');
  return {
    insert: (row: StepSessionRow): void => void insert.run(row.session_id, row.run_id, row.step, row.agent, row.created_at),
    ofStep: (runId: string, step: string): StepSessionRow | undefined => ofStep.get(runId, step),
    ofRun: (runId: string): StepSessionRow[] => ofRun.all(runId),
    ofSession: (sessionId: string): StepSessionRow | undefined => ofSession.get(sessionId),
  };
}
