/**
 * The operator's actions on a run that has not ended: approve, deny, approve an edited
 * review, cancel, raise its budget. Each loads the run on this node (a parked run is
 * claimed for it). With several nodes on a Postgres store, a run another live node
 * executes cannot be loaded here: the action is forwarded to that node, which performs it
 * as its own (cluster.ts, forwarding.ts), and its answer or its error is this one.
 */
import { KowalskiError } from '../../core/index.js';
import type { BudgetLimits } from '../../core/index.js';
import { FINAL_RUN_STATES } from '../../actors/index.js';
import { checkRaise, raisedLimits, spentOf } from './budget.js';
import type { BudgetView } from './budget.js';
import type { Clock } from '../base/clock.js';
import { RunHeldElsewhere } from '../store/leases.js';
import type { LiveRun } from './live-run.js';
import { checkSeen, editAndApprove, reviewOf } from './review.js';
import type { EditResult, ReviewView } from './review.js';
import type { ForwardedAction } from '../store/pg/requests.js';
import type { TraceStore } from '../store/traces.js';
import type { Supervisor } from './supervisor.js';

/** Each action's options, as a forwarded request carries them (plain JSON). */
export interface RunActionArgs {
  approve: { step?: string; hash?: string; by?: string };
  deny: { reason: string; step?: string; by?: string };
  review_edit: { hash: string; content: string; step?: string; by?: string };
  cancel: { reason?: string; by?: string };
  raise_budget: { raise: Record<string, unknown>; by?: string };
}

export interface RunActionResults {
  approve: { step: string };
  deny: { step: string };
  review_edit: EditResult;
  cancel: void;
  raise_budget: BudgetView;
}

export interface RunActionsDeps {
  supervisor: Supervisor;
  traces: TraceStore;
  clock: Clock;
  /** The run's budget as the operator sees it (after a raise). */
  budgetOf(runId: string): BudgetView;
  /** Ask node `to`, which executes the run, to perform the action (absent: one node, nothing to forward to). */
  forward?(to: string, runId: string, action: ForwardedAction, args: Record<string, unknown>): Promise<unknown>;
}

export interface RunActions {
  /** Perform the action: here, or on the node executing the run. */
  act<K extends ForwardedAction>(action: K, runId: string, args: RunActionArgs[K]): Promise<RunActionResults[K]>;
  /** Perform it here (a request another node forwarded). */
  here(action: ForwardedAction, runId: string, args: Record<string, unknown>): Promise<unknown>;
  /** The artifact a review waits on: read from the log, claiming nothing (any node can show it). */
  review(runId: string, step: string | undefined): ReviewView;
}

export function runActions(deps: RunActionsDeps): RunActions {
  const { supervisor } = deps;

  /** A run the operator may still act on, loaded; a finished one is refused (and not kept loaded). */
  const openRun = (runId: string): LiveRun => {
    const run = supervisor.load(runId);
    if (FINAL_RUN_STATES.has(run.actor.state)) {
      supervisor.release(run);
      throw new KowalskiError('KW_ERR_RUN_FINISHED', `run ${runId} has already ${run.actor.state}`);
    }
    return run;
  };

  /** The step waiting for the operator: the one named, or the only one. */
  const pendingStep = (run: LiveRun, step: string | undefined): string => {
    const runId = run.runId;
    const waiting = Object.entries(run.actor.context.steps).filter(([, s]) => s.status === 'awaiting_approval').map(([n]) => n);
    if (step !== undefined) {
      if (!waiting.includes(step)) throw new KowalskiError('KW_ERR_NO_PENDING_APPROVAL', `step "${step}" of run ${runId} is not waiting for approval${waiting.length > 0 ? ` (waiting: ${waiting.join(', ')})` : ''}`);
      return step;
    }
    if (waiting.length === 0) throw new KowalskiError('KW_ERR_NO_PENDING_APPROVAL', `run ${runId} has no step waiting for approval (it is ${run.actor.state})`);
    if (waiting.length > 1) throw new KowalskiError('KW_ERR_NO_PENDING_APPROVAL', `run ${runId} has ${waiting.length} steps waiting (${waiting.join(', ')}); name one with --step`);
    return waiting[0]!;
  };

  const actions: { [K in ForwardedAction]: (runId: string, args: RunActionArgs[K]) => Promise<RunActionResults[K]> } = {
    async approve(runId, opts) {
      const run = openRun(runId);
      const step = pendingStep(run, opts.step);
      checkSeen(run, step, opts.hash);
      const hash = run.actor.context.steps[step]!.pending!.hash;
      await supervisor.submitAndWait(run, [{ type: 'approval.granted', step, hash, by: opts.by ?? 'operator' }]);
      return { step };
    },
    async deny(runId, opts) {
      const run = openRun(runId);
      const step = pendingStep(run, opts.step);
      await supervisor.submitAndWait(run, [{ type: 'approval.denied', step, reason: opts.reason, by: opts.by ?? 'operator' }]);
      return { step };
    },
    async review_edit(runId, opts) {
      const run = openRun(runId);
      const step = pendingStep(run, opts.step);
      return editAndApprove(supervisor, run, step, { seen: opts.hash, content: opts.content, by: opts.by ?? 'operator' });
    },
    async cancel(runId, opts) {
      const run = openRun(runId);
      await supervisor.submitAndWait(run, [{ type: 'run.cancelled', reason: opts.reason ?? 'cancelled by the operator', by: opts.by ?? 'operator' }]);
    },
    async raise_budget(runId, opts) {
      const limits: BudgetLimits = checkRaise(opts.raise);
      const run = openRun(runId);
      try {
        raisedLimits(runId, run.actor.context.budget.limits, limits, spentOf(deps.traces, runId, run.createdAt, deps.clock.now()));
      } catch (err) {
        supervisor.release(run);
        throw err;
      }
      await supervisor.submitAndWait(run, [{ type: 'budget.raised', limits, by: opts.by ?? 'operator' }]);
      return deps.budgetOf(runId);
    },
  };

  const here = (action: ForwardedAction, runId: string, args: Record<string, unknown>): Promise<unknown> =>
    (actions[action] as (runId: string, args: unknown) => Promise<unknown>)(runId, args);

  return {
    here,
    async act(action, runId, args) {
      try {
        return await here(action, runId, args as unknown as Record<string, unknown>) as RunActionResults[typeof action];
      } catch (err) {
        if (deps.forward === undefined || !(err instanceof RunHeldElsewhere) || err.holder === undefined) throw err;
        return await deps.forward(err.holder, runId, action, args as unknown as Record<string, unknown>) as RunActionResults[typeof action];
      }
    },
    review(runId, step) {
      const run = supervisor.peek(runId);
      try {
        if (FINAL_RUN_STATES.has(run.actor.state)) throw new KowalskiError('KW_ERR_RUN_FINISHED', `run ${runId} has already ${run.actor.state}`);
        return reviewOf(run, pendingStep(run, step));
      } finally {
        supervisor.putBack(run);
      }
    },
  };
}
