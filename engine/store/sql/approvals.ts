/** The approvals projection table: the writes the committer makes, one typed function per query. */
import type { Database } from 'better-sqlite3';

export interface ApprovalRequested {
  runId: string;
  seq: number;
  step: string;
  reason: string;
  /** JSON of the command shown to the operator. */
  command: string;
  hash: string;
  at: number;
  /** A review's file (workdir-relative); null for a command. */
  artifact: string | null;
}

export interface ApprovalDecided {
  runId: string;
  step: string;
  state: 'granted' | 'denied';
  at: number;
  by: string;
  denyReason: string | null;
}

/** A row of `approvals` as stored. */
export interface ApprovalRecord {
  run_id: string;
  seq: number;
  step: string;
  reason: 'confirm_command' | 'outcome_unknown' | 'review';
  command: string;
  hash: string;
  state: 'pending' | 'granted' | 'denied' | 'void';
  requested_at: number;
  decided_at: number | null;
  decided_by: string | null;
  deny_reason: string | null;
  artifact: string | null;
}

export function approvalReads(db: Database) {
  const ofRun = db.prepare<[runId: string], ApprovalRecord>('SELECT * FROM approvals WHERE run_id = ? ORDER BY seq');
  return {
    /** A run's approvals in the order they were asked for. */
    ofRun: (runId: string): ApprovalRecord[] => ofRun.all(runId),
  };
}

export function approvalWrites(db: Database) {
  const request = db.prepare<[runId: string, seq: number, step: string, reason: string, command: string, hash: string, at: number, artifact: string | null]>(
    "INSERT INTO approvals (run_id, seq, step, reason, command, hash, state, requested_at, artifact) VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?)");
  const decide = db.prepare<[state: string, at: number, by: string, denyReason: string | null, runId: string, step: string]>(
    "UPDATE approvals SET state = ?, decided_at = ?, decided_by = ?, deny_reason = ? WHERE run_id = ? AND step = ? AND state = 'pending'");
  const voidPending = db.prepare<[at: number, runId: string]>(
    "UPDATE approvals SET state = 'void', decided_at = ? WHERE run_id = ? AND state = 'pending'");
  return {
    /** `approval.requested`: pending. */
    request: (a: ApprovalRequested): void => void request.run(a.runId, a.seq, a.step, a.reason, a.command, a.hash, a.at, a.artifact),
    /** `approval.granted` / `approval.denied`: the step's pending request decided. */
    decide: (d: ApprovalDecided): void => void decide.run(d.state, d.at, d.by, d.denyReason, d.runId, d.step),
    /** The run ended: what was pending will never be decided. */
    voidPending: (runId: string, at: number): void => void voidPending.run(at, runId),
  };
}

export type ApprovalWrites = ReturnType<typeof approvalWrites>;
export type ApprovalReads = ReturnType<typeof approvalReads>;
