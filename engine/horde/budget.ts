/**
 * `[budget]` of horde.md: the run's limits (docs/budgets.md). Every problem is
 * KW_ERR_BUDGET_INVALID with its key, e.g. `budget.tokens`; a key that is not a limit is
 * an error too (a misspelt limit would otherwise be no limit at all).
 */
import { BUDGET_KEYS, budgetValueProblem } from '../../core/index.js';
import type { BudgetKey, BudgetLimits } from '../../core/index.js';
import { describe, isTable } from './fields.js';
import type { Fields } from './fields.js';

/** Read `[budget]` from horde.md's root table; undefined when absent or wrong. */
export function readBudget(horde: Fields): BudgetLimits | undefined {
  if (!horde.has('budget')) return undefined;
  const raw = horde.raw('budget');
  const at = (key: string): ReturnType<Fields['at']> => horde.at(key);
  if (!isTable(raw)) {
    horde.problems.error('KW_ERR_BUDGET_INVALID', at('budget'), `budget must be a table ([budget] with ${BUDGET_KEYS.join(', ')}), not ${describe(raw)}`);
    return undefined;
  }
  const limits: BudgetLimits = {};
  let ok = true;
  for (const [key, v] of Object.entries(raw)) {
    if (!(BUDGET_KEYS as readonly string[]).includes(key)) {
      horde.problems.error('KW_ERR_BUDGET_INVALID', at(`budget.${key}`), `budget.${key} is not a limit; the limits are ${BUDGET_KEYS.join(', ')}`);
      ok = false;
      continue;
    }
    const problem = budgetValueProblem(key as BudgetKey, v);
    if (problem !== undefined) {
      horde.problems.error('KW_ERR_BUDGET_INVALID', at(`budget.${key}`), `budget.${key} ${problem}`);
      ok = false;
      continue;
    }
    limits[key as BudgetKey] = v as number;
  }
  return ok ? limits : undefined;
}
