/**
 * `kowalski budget <run-id>`: what a run spent against its limits; with limits
 * (`--tokens 50000`, …) raise them, and follow the run as it goes on (docs/budgets.md).
 */
import { withRuns } from './backend.js';
import { EXIT, runJson } from './common.js';
import { budgetLines } from './progress.js';
import { decide } from './run.js';

export interface BudgetFlags {
  modelCalls?: string;
  tokens?: string;
  costUsd?: string;
  toolCalls?: string;
  wallSecs?: string;
  json?: boolean;
}

/** The flags given, as `[budget]` keys: numbers where they look like one (the engine names a bad value). */
function raiseOf(opts: BudgetFlags): Record<string, unknown> {
  const flags: [string, string | undefined][] = [
    ['model_calls', opts.modelCalls], ['tokens', opts.tokens], ['cost_usd', opts.costUsd], ['tool_calls', opts.toolCalls], ['wall_secs', opts.wallSecs],
  ];
  const out: Record<string, unknown> = {};
  for (const [key, v] of flags) if (v !== undefined) out[key] = /^\s*\d+(\.\d+)?\s*$/.test(v) ? Number(v) : v;
  return out;
}

export function budgetCommand(runId: string, opts: BudgetFlags): Promise<number> {
  const json = opts.json === true;
  const raise = raiseOf(opts);
  return withRuns(async (runs) => {
    if (Object.keys(raise).length > 0) return decide(runs, runId, json, () => runs.raiseBudget(runId, raise));
    const view = await runs.getRun(runId);
    if (json) process.stdout.write(`${JSON.stringify(runJson(view))}\n`);
    else {
      const parked = view.budget.parked === null ? '' : ` — parked: ${view.budget.parked.over.join(', ')} spent`;
      process.stdout.write(`run ${runId} (${view.run.state})${parked}\n${budgetLines(view.budget).join('\n')}\n`);
    }
    return view.budget.parked !== null && view.run.state === 'awaiting_input' ? EXIT.parked : EXIT.ok;
  });
}
