/** The step_attempts projection table: the writes the committer makes, one typed function per query. */
import type { Database } from 'better-sqlite3';

export interface AttemptFinished {
  runId: string;
  step: string;
  attempt: number;
  state: 'passed' | 'failed';
  at: number;
  durationMs: number;
  artifact: string | null;
  summary: string | null;
  errorCode: string | null;
  error: string | null;
}

/** A row of `step_attempts` as stored. */
export interface AttemptRecord {
  run_id: string;
  step: string;
  attempt: number;
  state: 'running' | 'passed' | 'failed' | 'interrupted' | 'cancelled';
  started_at: number;
  finished_at: number | null;
  duration_ms: number | null;
  artifact: string | null;
  summary: string | null;
  error_code: string | null;
  error: string | null;
  pgid: number | null;
  token: string | null;
}

export function attemptReads(db: Database) {
  const ofRun = db.prepare<[runId: string], AttemptRecord>('SELECT * FROM step_attempts WHERE run_id = ? ORDER BY started_at, step, attempt');
  return {
    /** A run's attempts in the order they started. */
    ofRun: (runId: string): AttemptRecord[] => ofRun.all(runId),
  };
}

export function attemptWrites(db: Database) {
  const start = db.prepare<[runId: string, step: string, attempt: number, at: number]>(
    "INSERT INTO step_attempts (run_id, step, attempt, state, started_at) VALUES (?, ?, ?, 'running', ?)");
  const spawned = db.prepare<[pgid: number, token: string, runId: string, step: string, attempt: number]>(
    'UPDATE step_attempts SET pgid = ?, token = ? WHERE run_id = ? AND step = ? AND attempt = ?');
  const finish = db.prepare<[state: string, at: number, durationMs: number, artifact: string | null, summary: string | null, errorCode: string | null, error: string | null, runId: string, step: string, attempt: number]>(
    `UPDATE step_attempts SET state = ?, finished_at = ?, duration_ms = ?, artifact = ?, summary = ?, error_code = ?, error = ?
     WHERE run_id = ? AND step = ? AND attempt = ?`);
  const interrupt = db.prepare<[at: number, runId: string, step: string, attempt: number]>(
    "UPDATE step_attempts SET state = 'interrupted', finished_at = ? WHERE run_id = ? AND step = ? AND attempt = ?");
  const cancelRunning = db.prepare<[at: number, runId: string]>(
    "UPDATE step_attempts SET state = 'cancelled', finished_at = ? WHERE run_id = ? AND state = 'running'");
  return {
    /** `step.started`: a new attempt, running. */
    start: (runId: string, step: string, attempt: number, at: number): void => void start.run(runId, step, attempt, at),
    /** `step.spawned`: the process group and token of the attempt's command. */
    spawned: (runId: string, step: string, attempt: number, pgid: number, token: string): void => void spawned.run(pgid, token, runId, step, attempt),
    /** `step.finished`. */
    finish: (a: AttemptFinished): void => void finish.run(a.state, a.at, a.durationMs, a.artifact, a.summary, a.errorCode, a.error, a.runId, a.step, a.attempt),
    /** `step.interrupted`: the attempt will not report (a crash). */
    interrupt: (runId: string, step: string, attempt: number, at: number): void => void interrupt.run(at, runId, step, attempt),
    /** The run ended: whatever still runs is cancelled. */
    cancelRunning: (runId: string, at: number): void => void cancelRunning.run(at, runId),
  };
}

export type AttemptWrites = ReturnType<typeof attemptWrites>;
export type AttemptReads = ReturnType<typeof attemptReads>;
