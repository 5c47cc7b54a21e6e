/** A run's budget (docs/budgets.md): its limits, what it spent, and whether it is parked for it. */

/** The kinds of limit, as horde.md and config.toml spell them (`[budget]`). */
export type BudgetKey = 'model_calls' | 'tokens' | 'cost_usd' | 'tool_calls' | 'wall_secs';

/** Limits of one run; an absent key has no limit. */
export interface BudgetLimits {
  /** Model provider calls (every traced call, failed ones included). */
  model_calls?: number;
  /** Input + output tokens of those calls. */
  tokens?: number;
  /** US dollars, from the provider's price; calls whose price is unknown add nothing (see `BudgetSpent.unpriced`). */
  cost_usd?: number;
  /** Tool calls the models asked for (refused ones included). */
  tool_calls?: number;
  /** Seconds since the run was created (the engine's clock), parked time included. */
  wall_secs?: number;
}

/** What a run has spent, counted from its traces and its created time. */
export interface BudgetSpent {
  model_calls: number;
  tokens: number;
  cost_usd: number;
  tool_calls: number;
  wall_secs: number;
  /** Model calls whose price is unknown (their cost is not in `cost_usd`). */
  unpriced: number;
}

/** A run's budget as the CLI, the API and the app show it. */
export interface BudgetView {
  limits: BudgetLimits;
  spent: BudgetSpent;
  /** Set while the run is parked for its budget: what was over and spent when it parked. */
  parked: { over: BudgetKey[]; spent: BudgetSpent; at: number } | null;
}
