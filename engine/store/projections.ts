/**
 * Projection tables (runs, step_attempts, approvals), written in the same transaction
 * as the events that change them, through the typed queries of `sql/`. Folding a run's
 * events gives exactly what they hold.
 */
import type { RunContext, RunEvent, RunState } from '../../actors/index.js';
import { FINAL_RUN_STATES } from '../../actors/index.js';
import type { RunStore } from './run-store.js';
import type { ApprovalWrites } from './sql/approvals.js';
import type { AttemptWrites } from './sql/attempts.js';
import type { RunWrites } from './sql/runs.js';

export class Projections {
  private readonly runs: RunWrites;
  private readonly attempts: AttemptWrites;
  private readonly approvals: ApprovalWrites;

  constructor(store: Pick<RunStore, 'runWrites' | 'attemptWrites' | 'approvalWrites'>) {
    this.runs = store.runWrites;
    this.attempts = store.attemptWrites;
    this.approvals = store.approvalWrites;
  }

  /** Apply one event's row changes (inside the caller's transaction). */
  apply(runId: string, seq: number, at: number, event: RunEvent): void {
    switch (event.type) {
      case 'run.created': // the run's row is written once per commit, by `settle`
        return;
      case 'step.started':
        this.attempts.start(runId, event.step, event.attempt, at);
        return;
      case 'step.spawned':
        this.attempts.spawned(runId, event.step, event.attempt, event.pgid, event.token);
        return;
      case 'step.finished':
        this.attempts.finish({
          runId, step: event.step, attempt: event.attempt, at, state: event.outcome === 'pass' ? 'passed' : 'failed',
          durationMs: event.durationMs, artifact: event.artifact ?? null, summary: event.summary ?? null,
          errorCode: event.error?.code ?? null, error: event.error?.message ?? null,
        });
        return;
      case 'step.interrupted':
        this.attempts.interrupt(runId, event.step, event.attempt, at);
        return;
      case 'approval.requested':
        this.approvals.request({ runId, seq, step: event.step, reason: event.reason, command: JSON.stringify(event.command), hash: event.hash, at, artifact: event.artifact?.path ?? null });
        return;
      case 'approval.granted':
        this.approvals.decide({ runId, step: event.step, state: 'granted', at, by: event.by, denyReason: null });
        return;
      case 'approval.denied':
        this.approvals.decide({ runId, step: event.step, state: 'denied', at, by: event.by, denyReason: event.reason });
        return;
      case 'run.cancelled':
      case 'budget.exceeded':
      case 'budget.raised':
      case 'artifact.edited': // the approval that follows it decides the row; the edit is in the log
        return;
      default: {
        const never: never = event;
        throw new Error(`unprojected event ${(never as { type: string }).type}`);
      }
    }
  }

  /**
   * The run's row, once per commit, after its events: its state as the machine now says
   * (`before`: the state the row held). The commit that holds `run.created` inserts the row
   * as the commit leaves it; a later one updates it, only `updated_at` and `last_seq` when
   * the state stayed (the error columns change only with it).
   */
  settle(runId: string, lastSeq: number, at: number, before: RunState, state: RunState, ctx: RunContext, created?: Created): void {
    const final = FINAL_RUN_STATES.has(state);
    const ended = {
      id: runId, state, at, lastSeq, finishedAt: final ? at : null,
      errorCode: ctx.error?.code ?? (ctx.cancelled ? 'KW_ERR_RUN_CANCELLED' : null),
      error: ctx.error?.message ?? ctx.cancelled?.reason ?? null,
    };
    if (created !== undefined) {
      this.runs.insert({ ...ended, hordeId: created.hordeId, hordeHash: created.horde.hash, provenance: created.provenance, input: JSON.stringify(created.input) });
    } else if (state === before) {
      this.runs.progress(runId, at, lastSeq);
      return;
    } else {
      this.runs.settle(ended);
    }
    if (final) {
      this.attempts.cancelRunning(runId, at);
      this.approvals.voidPending(runId, at);
    }
  }
}

type Created = Extract<RunEvent, { type: 'run.created' }>;
