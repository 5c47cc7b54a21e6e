/**
 * Run budgets on the engine's side (docs/budgets.md): a run's limits when it starts, what
 * it has spent (from its traces and the engine's clock, so a restart resets nothing), the
 * budget as the run's events leave it, and the checks of a raise.
 */
import { BUDGET_KEYS, KowalskiError, budgetOver, budgetValueProblem, describeOver, mergeBudget } from '../../core/index.js';
import type { BudgetKey, BudgetLimits, BudgetSpent, HordeDef } from '../../core/index.js';
import type { Clock } from '../base/clock.js';
import type { StoredEvent } from '../store/events.js';
import type { TraceStore } from '../store/traces.js';
import type { BudgetView } from '../../contract/budget.js';
export type { BudgetView } from '../../contract/budget.js';

/** The limits a run starts with: its horde's `[budget]`, key by key over config.toml's. */
export function runLimits(horde: HordeDef, defaults: BudgetLimits): BudgetLimits {
  return mergeBudget(defaults, horde.budget ?? {});
}

/** What a run has spent by `now`: counted from its traces; wall time from `createdAt`. */
export function spentOf(traces: TraceStore, runId: string, createdAt: number, now: number): BudgetSpent {
  const t = traces.spentBy(runId);
  return {
    model_calls: t.modelCalls, tokens: t.tokens, cost_usd: t.costUsd, tool_calls: t.toolCalls,
    wall_secs: Math.max(0, Math.floor((now - createdAt) / 1000)), unpriced: t.unpriced,
  };
}

/** The limits and the park as a run's events leave them. */
export function budgetOfEvents(events: readonly StoredEvent[]): Omit<BudgetView, 'spent'> {
  let limits: BudgetLimits = {};
  let parked: BudgetView['parked'] = null;
  for (const { event, at } of events) {
    if (event.type === 'run.created') limits = event.budget ?? {};
    else if (event.type === 'budget.exceeded') parked = { over: event.over, spent: event.spent, at };
    else if (event.type === 'budget.raised') {
      limits = mergeBudget(limits, event.limits);
      parked = null;
    }
  }
  return { limits, parked };
}

/** A raise as the operator typed it: known keys with numbers above 0 (KW_ERR_BUDGET_INVALID names the key). */
export function checkRaise(raise: Record<string, unknown>): BudgetLimits {
  const out: BudgetLimits = {};
  for (const [key, v] of Object.entries(raise)) {
    if (v === undefined) continue;
    if (!(BUDGET_KEYS as readonly string[]).includes(key)) {
      throw new KowalskiError('KW_ERR_BUDGET_INVALID', `${key} is not a limit; the limits are ${BUDGET_KEYS.join(', ')}`, { where: { key } });
    }
    const problem = budgetValueProblem(key as BudgetKey, v);
    if (problem !== undefined) throw new KowalskiError('KW_ERR_BUDGET_INVALID', `${key} ${problem}`, { where: { key } });
    out[key as BudgetKey] = v as number;
  }
  if (Object.keys(out).length === 0) throw new KowalskiError('KW_ERR_BUDGET_INVALID', `name at least one limit to raise: ${BUDGET_KEYS.join(', ')}`);
  return out;
}

/** The limits after a raise; KW_ERR_BUDGET_TOO_LOW when one would still be spent (the run would park again at once). */
export function raisedLimits(runId: string, limits: BudgetLimits, raise: BudgetLimits, spent: BudgetSpent): BudgetLimits {
  const next = mergeBudget(limits, raise);
  const over = budgetOver(next, spent);
  if (over.length > 0) {
    throw new KowalskiError('KW_ERR_BUDGET_TOO_LOW',
      `run ${runId} has spent ${describeOver(over, next, spent)}: raise ${over.join(', ')} above what is spent`, { where: { key: over[0]! } });
  }
  return next;
}

/** Spent amounts for the clock given (a small helper the engine passes to the supervisor). */
export function budgetMeter(traces: TraceStore, clock: Clock): (runId: string, createdAt: number) => BudgetSpent {
  return (runId, createdAt) => spentOf(traces, runId, createdAt, clock.now());
}

/** A run's budget from its log and traces; wall time up to `now`, or to when the run finished. */
export function readBudgetView(events: readonly StoredEvent[], traces: TraceStore, run: { id: string; createdAt: number; finishedAt: number | null }, now: number): BudgetView {
  return { ...budgetOfEvents(events), spent: spentOf(traces, run.id, run.createdAt, run.finishedAt ?? now) };
}
