/**
 * What a run does next, decided from its context and the few facts only the engine has:
 * which ready steps start, which ask the operator first (a command to confirm, an artifact
 * to review, an outcome unknown after a crash), and when the run parks for its budget.
 * Pure: the facts are asked for (a step's command, a review's artifact, what the run has
 * spent), never fetched here. The engine applies the events in order to the run's machine,
 * which must accept each one (the property tests check that it does), and commits them.
 */
import { budgetOver, hasLimits } from '../core/index.js';
import type { BudgetSpent } from '../core/index.js';
import type { ApprovalCommand, RunEvent } from './run.events.js';
import type { RunContext } from './run.context.js';
import { reusesResult } from './run.logic.js';

type ApprovalRequested = Extract<RunEvent, { type: 'approval.requested' }>;

/** What the engine knows that the context does not; each asked only when a decision needs it. */
export interface DecideFacts {
  /** How many more steps may start now under the engine's limit on running steps. */
  slots: number;
  /** The command the step will run, as the operator sees it, and its hash (what an approval binds to). */
  command(step: string): ApprovalCommand & { hash: string };
  /** A ready review step's request: its artifact as it is now, and that artifact's hash. */
  review(step: string): ApprovalRequested;
  /** What the run has spent so far (asked at most once, when a step would start and the run has limits). */
  spent(): BudgetSpent;
}

export interface Decision {
  /** To apply to the machine in this order, and commit with the events that led here. */
  events: RunEvent[];
  /** A ready step found no free slot: the run waits for one (the engine gives it the next slot freed). */
  waitsForSlot: boolean;
}

/** The decisions the run's steps allow now. Call it on a run that has not ended. */
export function decide(ctx: RunContext, facts: DecideFacts): Decision {
  const events: RunEvent[] = [];
  let waitsForSlot = false;
  let slots = facts.slots;
  let parked = ctx.budget.parked !== undefined;
  let spent: BudgetSpent | undefined;
  for (const name of ctx.graph.pipeline) {
    const s = ctx.steps[name]!;
    if (s.status === 'unknown') {
      // Interrupted and not safe to repeat: the operator says whether it runs again.
      const { hash, ...command } = facts.command(name);
      events.push({ type: 'approval.requested', step: name, reason: 'outcome_unknown', command, hash });
      continue;
    }
    if (s.status !== 'ready') continue;
    const ask = askFirst(ctx, name, facts);
    if (ask !== undefined) {
      events.push(ask);
      continue;
    }
    if (slots <= 0) {
      waitsForSlot = true;
      continue;
    }
    if (parked) continue;
    const limits = ctx.budget.limits;
    if (hasLimits(limits)) {
      spent ??= facts.spent();
      const over = budgetOver(limits, spent);
      if (over.length > 0) {
        events.push({ type: 'budget.exceeded', over, spent, limits });
        parked = true;
        continue;
      }
    }
    slots -= 1;
    events.push({ type: 'step.started', step: name, attempt: s.attempts + 1 });
  }
  return { events, waitsForSlot };
}

/**
 * A ready step that must ask the operator before it starts: a review (on its artifact, once
 * per pass), a command to confirm (unless this very command was approved). A re-run's step
 * that reuses an earlier result runs nothing, so it asks nothing.
 */
function askFirst(ctx: RunContext, name: string, facts: DecideFacts): ApprovalRequested | undefined {
  const s = ctx.steps[name]!;
  const policy = ctx.policy[name];
  if (reusesResult(ctx, name)) return undefined;
  if (policy?.review === true) return s.approvedHash === undefined ? facts.review(name) : undefined;
  if (policy?.approval !== true) return undefined;
  const { hash, ...command } = facts.command(name);
  return s.approvedHash === hash ? undefined : { type: 'approval.requested', step: name, reason: 'confirm_command', command, hash };
}
