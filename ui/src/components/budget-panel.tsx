/**
 * A run's budget: what it spent against each limit. While the run is parked for its
 * budget, a form raises the limits (POST /api/runs/:id/budget) and the run goes on;
 * Cancel (the run's actions above) ends it instead.
 */
import { useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { useServices } from '../services';
import type { BudgetKey, BudgetLimits, BudgetView } from '../types';
import { ErrorBox } from './status';

const KEYS: readonly BudgetKey[] = ['model_calls', 'tokens', 'cost_usd', 'tool_calls', 'wall_secs'];
const LABEL: Record<BudgetKey, string> = {
  model_calls: 'Model calls', tokens: 'Tokens', cost_usd: 'Cost (USD)', tool_calls: 'Tool calls', wall_secs: 'Wall time (s)',
};

function shown(n: number): string {
  return String(Math.round(n * 10_000) / 10_000);
}

/** A suggestion for a spent limit: double what was spent, at least one more. */
function suggest(key: BudgetKey, spent: number): string {
  if (key === 'cost_usd') return shown(Math.max(spent * 2, spent + 0.01));
  return String(Math.max(Math.ceil(spent * 2), spent + 1));
}

export function BudgetPanel({ runId, budget, parked, onDone }: { runId: string; budget: BudgetView; parked: boolean; onDone: () => void }) {
  const { api } = useServices();
  const over = parked ? budget.parked?.over ?? [] : [];
  const [values, setValues] = useState<Record<string, string>>(() => Object.fromEntries(over.map((k) => [k, suggest(k, budget.spent[k])])));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  if (!parked && !KEYS.some((k) => budget.limits[k] !== undefined)) return null;

  const raise = async (e: Event) => {
    e.preventDefault();
    const limits: BudgetLimits = {};
    for (const k of KEYS) {
      const v = values[k]?.trim() ?? '';
      if (v !== '') limits[k] = Number(v);
    }
    setBusy(true);
    setError(undefined);
    try {
      await api.raiseBudget(runId, limits);
      onDone();
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class={parked ? 'approval budget' : 'budget'} data-testid="budget-panel" aria-labelledby="budget-title">
      <h3 id="budget-title">{parked ? 'Parked: the run has spent its budget' : 'Budget'}</h3>
      {parked && (
        <p class="approval__why" data-testid="budget-reason">
          It stopped before its next step: {over.map((k) => LABEL[k].toLowerCase()).join(', ')} reached the limit. Raise the limits to let it go on, or cancel the run.
        </p>
      )}
      <form onSubmit={(e) => void raise(e)}>
        <table class="budget__table">
          <thead><tr><th scope="col">Limit</th><th scope="col">Spent</th><th scope="col">Limit now</th>{parked && <th scope="col">New limit</th>}</tr></thead>
          <tbody>
            {KEYS.map((k) => (
              <tr key={k} data-testid={`budget-row-${k}`} class={over.includes(k) ? 'budget__over' : undefined}>
                <th scope="row">{LABEL[k]}</th>
                <td data-testid={`budget-spent-${k}`}>
                  {shown(budget.spent[k])}
                  {k === 'cost_usd' && budget.spent.unpriced > 0 && <span class="muted small"> ({budget.spent.unpriced} calls of unknown price not counted)</span>}
                </td>
                <td data-testid={`budget-limit-${k}`}>{budget.limits[k] === undefined ? <span class="muted">none</span> : shown(budget.limits[k])}</td>
                {parked && (
                  <td>
                    <input type="number" min={0} step={k === 'cost_usd' ? 'any' : 1} aria-label={`New limit: ${LABEL[k]}`} value={values[k] ?? ''} disabled={busy}
                      data-testid={`budget-input-${k}`} onInput={(e) => setValues((v) => ({ ...v, [k]: e.currentTarget.value }))} />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
        {error !== undefined && <ErrorBox error={error} title="The budget was not raised" />}
        {parked && (
          <div class="approval__decide">
            <button type="submit" class="btn btn--approve" disabled={busy} data-testid="budget-raise">{busy ? 'Raising…' : 'Raise and continue'}</button>
          </div>
        )}
      </form>
    </section>
  );
}
