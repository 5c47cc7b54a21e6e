/** Read-side queries over the projection tables, for the CLI, the API and tests. */
import type { ApprovalCommand, RunState } from '../../actors/index.js';
import type { RunStore } from './run-store.js';
import type { ApprovalReads, ApprovalRecord } from './sql/approvals.js';
import type { AttemptReads, AttemptRecord } from './sql/attempts.js';
import type { RunReads, RunRecord } from './sql/runs.js';
import type { ApprovalRow, AttemptRow, RunRow } from '../../contract/runs.js';
export type { ApprovalRow, AttemptRow, RunRow } from '../../contract/runs.js';

export interface ListRunsFilter {
  status?: RunState;
  horde?: string;
  /** Default 50, at most 1000 (the API pages by 500 and asks for one more to know whether there is a next page). */
  limit?: number;
  /** Runs created before this run id's creation (paging, newest first). */
  cursor?: string;
}

function toRun(r: RunRecord): RunRow {
  return {
    id: r.id, hordeId: r.horde_id, hordeHash: r.horde_hash, state: r.state, provenance: r.provenance,
    input: JSON.parse(r.input) as Record<string, string>, createdAt: r.created_at, updatedAt: r.updated_at,
    finishedAt: r.finished_at, errorCode: r.error_code, error: r.error, lastSeq: r.last_seq,
  };
}

function toAttempt(r: AttemptRecord): AttemptRow {
  return {
    step: r.step, attempt: r.attempt, state: r.state, startedAt: r.started_at, finishedAt: r.finished_at, durationMs: r.duration_ms,
    artifact: r.artifact, summary: r.summary, errorCode: r.error_code, error: r.error,
  };
}

function toApproval(r: ApprovalRecord): ApprovalRow {
  return {
    step: r.step, seq: r.seq, reason: r.reason, command: JSON.parse(r.command) as ApprovalCommand, hash: r.hash, state: r.state,
    requestedAt: r.requested_at, decidedAt: r.decided_at, decidedBy: r.decided_by, denyReason: r.deny_reason, artifact: r.artifact,
  };
}

export class RunQueries {
  private readonly runs: RunReads;
  private readonly attemptRows: AttemptReads;
  private readonly approvalRows: ApprovalReads;

  constructor(store: Pick<RunStore, 'runReads' | 'attemptReads' | 'approvalReads'>) {
    this.runs = store.runReads;
    this.attemptRows = store.attemptReads;
    this.approvalRows = store.approvalReads;
  }

  getRun(id: string): RunRow | undefined {
    const r = this.runs.byId(id);
    return r === undefined ? undefined : toRun(r);
  }

  /** The run started with this provenance, if any (the first). */
  runIdByProvenance(provenance: string): string | undefined {
    return this.runs.idByProvenance(provenance);
  }

  attempts(runId: string): AttemptRow[] {
    return this.attemptRows.ofRun(runId).map(toAttempt);
  }

  approvals(runId: string): ApprovalRow[] {
    return this.approvalRows.ofRun(runId).map(toApproval);
  }

  /** Runs that were queued or running when the engine last stopped. */
  unfinishedRunIds(): string[] {
    return this.runs.unfinishedIds();
  }

  /** Runs a trigger started that have not finished (parked ones included: they are still that trigger's run). */
  unfinishedTriggerRuns(): Array<{ runId: string; hordeId: string; provenance: string }> {
    return this.runs.unfinishedTriggerRuns().map((r) => ({ runId: r.id, hordeId: r.horde_id, provenance: r.provenance }));
  }

  countByState(): Partial<Record<RunState, number>> {
    const out: Partial<Record<RunState, number>> = {};
    for (const r of this.runs.countByState()) out[r.state] = r.n;
    return out;
  }

  listRuns(filter: ListRunsFilter = {}): RunRow[] {
    const limit = Math.min(1000, Math.max(1, filter.limit ?? 50));
    return this.runs.list({
      limit,
      ...(filter.status === undefined ? {} : { state: filter.status }),
      ...(filter.horde === undefined ? {} : { hordeId: filter.horde }),
      ...(filter.cursor === undefined ? {} : { beforeRunId: filter.cursor }),
    }).map(toRun);
  }
}
