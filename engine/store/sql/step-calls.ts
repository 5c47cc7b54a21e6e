/**
 * `step_calls`: the answers of `mcp_call` steps' tools (migration 15), one per run, step and
 * attempt. One typed function per query, positional parameters, typed rows (as events.ts).
 */
import type { Database } from 'better-sqlite3';

export interface StepCallRow {
  id: number;
  run_id: string;
  step: string;
  attempt: number;
  tool: string;
  args_sha256: string;
  content: string;
  /** The tool's structured result as JSON; null when it gave none. */
  structured: string | null;
  /** The attempt whose answer this is, when it was given back rather than asked for. */
  from_attempt: number | null;
  created_at: number;
}

export interface StepCallRecord {
  runId: string;
  step: string;
  attempt: number;
  tool: string;
  argsSha256: string;
  content: string;
  structured: string | null;
  fromAttempt: number | null;
  at: number;
}

export function stepCallQueries(db: Database) {
  const record = db.prepare<[runId: string, step: string, attempt: number, tool: string, argsSha256: string, content: string, structured: string | null, fromAttempt: number | null, at: number]>(
    `INSERT INTO step_calls (run_id, step, attempt, tool, args_sha256, content, structured, from_attempt, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (run_id, step, attempt) DO NOTHING`);
  const latestBefore = db.prepare<[runId: string, step: string, attempt: number], StepCallRow>(
    'SELECT * FROM step_calls WHERE run_id = ? AND step = ? AND attempt < ? ORDER BY attempt DESC LIMIT 1');
  const ofRun = db.prepare<[runId: string], StepCallRow>('SELECT * FROM step_calls WHERE run_id = ? ORDER BY id');
  return {
    /** The answer an attempt got (committed before the step goes on); a second record of one attempt is ignored. */
    record: (r: StepCallRecord): void => void record.run(r.runId, r.step, r.attempt, r.tool, r.argsSha256, r.content, r.structured, r.fromAttempt, r.at),
    /** The answer of the step's latest attempt before `attempt`, if that one got any. */
    latestBefore: (runId: string, step: string, attempt: number): StepCallRow | undefined => latestBefore.get(runId, step, attempt),
    ofRun: (runId: string): StepCallRow[] => ofRun.all(runId),
  };
}

export type StepCallQueries = ReturnType<typeof stepCallQueries>;
