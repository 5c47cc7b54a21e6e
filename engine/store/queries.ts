/** Read-side queries over the projection tables, for the CLI, the API and tests. */
import type { Database, Statement } from 'better-sqlite3';
import type { ApprovalCommand, RunState } from '../../actors/index.js';
import { whereOf } from './where.js';

export interface RunRow {
  id: string;
  hordeId: string;
  hordeHash: string;
  state: RunState;
  provenance: string;
  input: Record<string, string>;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  errorCode: string | null;
  error: string | null;
  lastSeq: number;
}

export interface AttemptRow {
  step: string;
  attempt: number;
  state: 'running' | 'passed' | 'failed' | 'interrupted' | 'cancelled';
  startedAt: number;
  finishedAt: number | null;
  durationMs: number | null;
  artifact: string | null;
  summary: string | null;
  errorCode: string | null;
  error: string | null;
}

export interface ApprovalRow {
  step: string;
  seq: number;
  reason: 'confirm_command' | 'outcome_unknown';
  command: ApprovalCommand;
  hash: string;
  state: 'pending' | 'granted' | 'denied' | 'void';
  requestedAt: number;
  decidedAt: number | null;
  decidedBy: string | null;
  denyReason: string | null;
}

export interface ListRunsFilter {
  status?: RunState;
  horde?: string;
  /** Default 50, at most 1000 (the API pages by 500 and asks for one more to know whether there is a next page). */
  limit?: number;
  /** Runs created before this run id's creation (paging, newest first). */
  cursor?: string;
}

interface RawRun { id: string; horde_id: string; horde_hash: string; state: RunState; provenance: string; input: string; created_at: number; updated_at: number; finished_at: number | null; error_code: string | null; error: string | null; last_seq: number }

function toRun(r: RawRun): RunRow {
  return {
    id: r.id, hordeId: r.horde_id, hordeHash: r.horde_hash, state: r.state, provenance: r.provenance,
    input: JSON.parse(r.input) as Record<string, string>, createdAt: r.created_at, updatedAt: r.updated_at,
    finishedAt: r.finished_at, errorCode: r.error_code, error: r.error, lastSeq: r.last_seq,
  };
}

export class RunQueries {
  private readonly s: Record<string, Statement>;

  constructor(private readonly db: Database) {
    this.s = {
      run: db.prepare('SELECT * FROM runs WHERE id = ?'),
      attempts: db.prepare('SELECT * FROM step_attempts WHERE run_id = ? ORDER BY started_at, step, attempt'),
      approvals: db.prepare('SELECT * FROM approvals WHERE run_id = ? ORDER BY seq'),
      unfinished: db.prepare("SELECT id FROM runs WHERE state IN ('queued', 'running') ORDER BY created_at"),
      countByState: db.prepare('SELECT state, count(*) AS n FROM runs GROUP BY state'),
      triggerRuns: db.prepare("SELECT id, horde_id, provenance FROM runs WHERE provenance LIKE 'trigger:%' AND state IN ('queued', 'running', 'awaiting_input') ORDER BY created_at"),
    };
  }

  getRun(id: string): RunRow | undefined {
    const r = this.s.run!.get(id) as RawRun | undefined;
    return r === undefined ? undefined : toRun(r);
  }

  attempts(runId: string): AttemptRow[] {
    return (this.s.attempts!.all(runId) as Record<string, unknown>[]).map((r) => ({
      step: r.step as string, attempt: r.attempt as number, state: r.state as AttemptRow['state'], startedAt: r.started_at as number,
      finishedAt: r.finished_at as number | null, durationMs: r.duration_ms as number | null, artifact: r.artifact as string | null,
      summary: r.summary as string | null, errorCode: r.error_code as string | null, error: r.error as string | null,
    }));
  }

  approvals(runId: string): ApprovalRow[] {
    return (this.s.approvals!.all(runId) as Record<string, unknown>[]).map((r) => ({
      step: r.step as string, seq: r.seq as number, reason: r.reason as ApprovalRow['reason'],
      command: JSON.parse(r.command as string) as ApprovalCommand, hash: r.hash as string, state: r.state as ApprovalRow['state'],
      requestedAt: r.requested_at as number, decidedAt: r.decided_at as number | null, decidedBy: r.decided_by as string | null,
      denyReason: r.deny_reason as string | null,
    }));
  }

  /** Runs that were queued or running when the engine last stopped. */
  unfinishedRunIds(): string[] {
    return this.s.unfinished!.pluck().all() as string[];
  }

  /** Runs a trigger started that have not finished (parked ones included: they are still that trigger's run). */
  unfinishedTriggerRuns(): Array<{ runId: string; hordeId: string; provenance: string }> {
    return (this.s.triggerRuns!.all() as { id: string; horde_id: string; provenance: string }[]).map((r) => ({ runId: r.id, hordeId: r.horde_id, provenance: r.provenance }));
  }

  countByState(): Partial<Record<RunState, number>> {
    const out: Partial<Record<RunState, number>> = {};
    for (const r of this.s.countByState!.all() as { state: RunState; n: number }[]) out[r.state] = r.n;
    return out;
  }

  listRuns(filter: ListRunsFilter = {}): RunRow[] {
    const where = whereOf([
      filter.status === undefined ? undefined : ['state = ?', filter.status],
      filter.horde === undefined ? undefined : ['horde_id = ?', filter.horde],
      filter.cursor === undefined ? undefined : ['(created_at, id) < (SELECT created_at, id FROM runs WHERE id = ?)', filter.cursor],
    ]);
    const limit = Math.min(1000, Math.max(1, filter.limit ?? 50));
    const sql = `SELECT * FROM runs ${where.sql} ORDER BY created_at DESC, id DESC LIMIT ${limit}`;
    return (this.db.prepare(sql).all(...where.params) as RawRun[]).map(toRun);
  }
}
