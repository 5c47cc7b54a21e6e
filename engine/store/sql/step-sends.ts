/**
 * `step_sends`: the deliveries of `send` steps (migration 14), one per run and step. One
 * typed function per query, positional parameters, typed rows (as events.ts).
 */
import type { Database } from 'better-sqlite3';

export type StepSendState = 'sending' | 'sent' | 'refused' | 'unknown';

export interface StepSendRow {
  id: number;
  run_id: string;
  step: string;
  adapter: string;
  target: string;
  state: StepSendState;
  bytes: number;
  sha256: string;
  message_id: string | null;
  error: string | null;
  created_at: number;
  updated_at: number;
}

export function stepSendQueries(db: Database) {
  const begin = db.prepare<[runId: string, step: string, adapter: string, target: string, bytes: number, sha256: string, at: number, at2: number]>(
    `INSERT INTO step_sends (run_id, step, adapter, target, state, bytes, sha256, created_at, updated_at) VALUES (?, ?, ?, ?, 'sending', ?, ?, ?, ?)
     ON CONFLICT (run_id, step) DO UPDATE SET adapter = excluded.adapter, target = excluded.target, state = 'sending', bytes = excluded.bytes,
       sha256 = excluded.sha256, error = NULL, updated_at = excluded.updated_at WHERE step_sends.state = 'refused'`);
  const finish = db.prepare<[state: StepSendState, messageId: string | null, error: string | null, at: number, runId: string, step: string]>(
    "UPDATE step_sends SET state = ?, message_id = ?, error = ?, updated_at = ? WHERE run_id = ? AND step = ? AND state = 'sending'");
  const ofStep = db.prepare<[runId: string, step: string], StepSendRow>('SELECT * FROM step_sends WHERE run_id = ? AND step = ?');
  const ofRun = db.prepare<[runId: string], StepSendRow>('SELECT * FROM step_sends WHERE run_id = ? ORDER BY id');
  return {
    /** Record the intent (`sending`), committed before the send; a refused earlier one is tried again. False: a row in another state is there. */
    begin: (row: { runId: string; step: string; adapter: string; target: string; bytes: number; sha256: string; at: number }): boolean =>
      begin.run(row.runId, row.step, row.adapter, row.target, row.bytes, row.sha256, row.at, row.at).changes === 1,
    finish: (runId: string, step: string, state: 'sent' | 'refused' | 'unknown', messageId: string | null, error: string | null, at: number): void =>
      void finish.run(state, messageId, error, at, runId, step),
    ofStep: (runId: string, step: string): StepSendRow | undefined => ofStep.get(runId, step),
    ofRun: (runId: string): StepSendRow[] => ofRun.all(runId),
  };
}

export type StepSendQueries = ReturnType<typeof stepSendQueries>;
