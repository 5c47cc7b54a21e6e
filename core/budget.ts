/**
 * A run's budget: limits on what it may spend (model calls, tokens, cost, tool calls, wall
 * time) and what it spent. Crossing a limit parks the run for the operator, who raises it
 * or cancels (docs/budgets.md). Plain data and pure functions: no clock, no I/O.
 */
import type { BudgetKey, BudgetLimits, BudgetSpent } from '../contract/budget.js';
export type { BudgetKey, BudgetLimits, BudgetSpent } from '../contract/budget.js';

/** The kinds of limit, as horde.md and config.toml spell them (`[budget]`). */
export const BUDGET_KEYS = ['model_calls', 'tokens', 'cost_usd', 'tool_calls', 'wall_secs'] as const satisfies readonly BudgetKey[];
/** Compiles only while BUDGET_KEYS lists every BudgetKey. */
type _EveryBudgetKey<T extends never = Exclude<BudgetKey, (typeof BUDGET_KEYS)[number]>> = T;

/** What a budget key means, for messages. */
export const BUDGET_LABELS: Record<BudgetKey, string> = {
  model_calls: 'model calls',
  tokens: 'tokens',
  cost_usd: 'cost (USD)',
  tool_calls: 'tool calls',
  wall_secs: 'wall time (s)',
};

/** Whole numbers, except cost. */
export function budgetValueProblem(key: BudgetKey, v: unknown): string | undefined {
  if (typeof v !== 'number' || !Number.isFinite(v)) return `must be a number, not ${JSON.stringify(v) ?? String(v)}`;
  if (key === 'cost_usd') return v > 0 ? undefined : `must be more than 0, not ${v}`;
  return Number.isInteger(v) && v >= 1 ? undefined : `must be a whole number of at least 1, not ${v}`;
}

/** The keys whose limit is reached (spent ≥ limit), in BUDGET_KEYS order. */
export function budgetOver(limits: BudgetLimits, spent: BudgetSpent): BudgetKey[] {
  return BUDGET_KEYS.filter((k) => limits[k] !== undefined && spent[k] >= limits[k]);
}

/** `limits` with `raise` on top (a key of `raise` replaces the same key). */
export function mergeBudget(limits: BudgetLimits, raise: BudgetLimits): BudgetLimits {
  const out: BudgetLimits = { ...limits };
  for (const k of BUDGET_KEYS) if (raise[k] !== undefined) out[k] = raise[k];
  return out;
}

export function hasLimits(limits: BudgetLimits): boolean {
  return BUDGET_KEYS.some((k) => limits[k] !== undefined);
}

/** `tokens 1200 of 1000, model calls 3 of 3` */
export function describeOver(over: readonly BudgetKey[], limits: BudgetLimits, spent: BudgetSpent): string {
  return over.map((k) => `${BUDGET_LABELS[k]} ${round(spent[k])} of ${round(limits[k] ?? 0)}`).join(', ');
}

function round(n: number): number {
  return Math.round(n * 10_000) / 10_000;
}
