/**
 * `run`, `rerun`, `approve`, `deny`, `cancel`, `resume` (and `review`, in review.ts): drive runs in the foreground — through the
 * server when one owns the data directory, else with an embedded engine.
 */
import path from 'node:path';
import { vaultNoteOf } from '../../core/index.js';
import type { HordeDef } from '../../core/index.js';
import type { RunState } from '../../engine/index.js';
import { assertReady, findHorde, formatRecovery } from '../../engine/index.js';
import { withRuns } from './backend.js';
import type { Runs } from './backend.js';
import { EXIT, dataDir, exitFor, formatResults, parseInputs, runJson } from './common.js';
import { describeParked, progressPrinter } from './progress.js';

export interface JsonFlag {
  json?: boolean;
}

/** Follow the run from after `after` until it finishes or parks; print the outcome; return the exit status. */
async function finish(runs: Runs, runId: string, after: number, json: boolean): Promise<number> {
  const printer = json ? undefined : progressPrinter(runId, () => runs.getRun(runId));
  let state: RunState | undefined;
  try {
    state = await runs.follow(runId, after, printer?.event);
  } finally {
    await printer?.end(state);
  }
  const view = await runs.getRun(runId);
  if (json) process.stdout.write(`${JSON.stringify(runJson(view))}\n`);
  else if (state === 'awaiting_input') process.stdout.write(`${describeParked(view)}\n`);
  else if (state === 'failed') process.stdout.write(`run ${runId} failed: ${view.run.error ?? 'see kowalski show'} [${view.run.errorCode ?? '?'}]\n`);
  else process.stdout.write(`run ${runId} ${state}\n`);
  if (!json && state !== 'awaiting_input') process.stdout.write(formatResults(view));
  return exitFor(state);
}

/** An operator's decision on a parked run, then follow it from there. */
export async function decide(runs: Runs, runId: string, json: boolean, act: () => Promise<void>): Promise<number> {
  const after = (await runs.getRun(runId)).run.lastSeq;
  await act();
  return finish(runs, runId, after, json);
}

/**
 * A relative answer to a `path`, `file` or `folder` input is relative to where the command
 * was typed; the engine (or a server elsewhere) is given it absolute. A vault note
 * (`vault:watchlist.md`) is the vault's, not the folder's: left as it is.
 */
function absolutePaths(horde: HordeDef, input: Record<string, string>, cwd: string): Record<string, string> {
  const out = { ...input };
  for (const f of horde.inputs) {
    const v = out[f.id]?.trim();
    if (v === undefined || v === '' || !(f.type === 'path' || f.type === 'file' || f.type === 'folder') || vaultNoteOf(v) !== undefined) continue;
    if (v !== '~' && !v.startsWith('~/') && !path.isAbsolute(v)) out[f.id] = path.resolve(cwd, v);
  }
  return out;
}

export async function runCommand(ref: string, opts: JsonFlag & { input?: string[]; skipModelCheck?: boolean }): Promise<number> {
  const given = parseInputs(opts.input ?? []);
  // Find the horde before taking the data directory: a typo says "not found", even while another engine runs.
  const found = await findHorde(ref, { dataDir: dataDir() });
  const input = absolutePaths(found.horde, given, process.cwd());
  return withRuns(async (runs) => {
    // A model step with no model, or one whose provider does not answer, refuses here (exit 2) rather than failing mid-run.
    if (opts.skipModelCheck !== true) assertReady(await runs.readiness(found));
    return finish(runs, await runs.startRun(found, input), 0, opts.json === true);
  });
}

/** `rerun <run-id> --from <step> [--horde <folder>] [--replay-models]`: a new run whose steps before `from` reuse the earlier run's results; follow it. */
export async function rerunCommand(runId: string, opts: JsonFlag & { from: string; horde?: string; replayModels?: boolean }): Promise<number> {
  const found = opts.horde === undefined ? undefined : await findHorde(opts.horde, { dataDir: dataDir() });
  return withRuns(async (runs) => {
    const id = await runs.rerun(runId, { from: opts.from, replayModels: opts.replayModels === true, ...(found === undefined ? {} : { found }) });
    if (opts.json !== true) process.stderr.write(`kowalski: run ${id} re-runs ${runId} from "${opts.from}"\n`);
    return finish(runs, id, 0, opts.json === true);
  });
}

export function approveCommand(runId: string, opts: JsonFlag & { step?: string; hash?: string }): Promise<number> {
  const options = { ...(opts.step === undefined ? {} : { step: opts.step }), ...(opts.hash === undefined ? {} : { hash: opts.hash }) };
  return withRuns((runs) => decide(runs, runId, opts.json === true, () => runs.approve(runId, options)));
}

export function denyCommand(runId: string, opts: JsonFlag & { step?: string; reason?: string }): Promise<number> {
  const reason = opts.reason ?? 'denied by the operator';
  return withRuns((runs) => decide(runs, runId, opts.json === true, () => runs.deny(runId, { reason, ...(opts.step === undefined ? {} : { step: opts.step }) })));
}

export function cancelCommand(runId: string, opts: JsonFlag & { reason?: string }): Promise<number> {
  return withRuns(async (runs) => {
    await runs.cancel(runId, opts.reason === undefined ? {} : { reason: opts.reason });
    const view = await runs.getRun(runId);
    if (opts.json === true) process.stdout.write(`${JSON.stringify(runJson(view))}\n`);
    else process.stdout.write(`run ${runId} cancelled\n`);
    return EXIT.ok;
  });
}

export function resumeCommand(opts: JsonFlag): Promise<number> {
  return withRuns(async (runs) => {
    const { summary, note } = await runs.resume();
    if (opts.json !== true) process.stderr.write(`${note === undefined ? '' : `${note}\n`}${formatRecovery(summary)}\n`);
    const states = await Promise.all(summary.resumed.map(async (runId) => ({ runId, state: await runs.follow(runId, 0) })));
    if (opts.json === true) process.stdout.write(`${JSON.stringify({ ...summary, runs: states })}\n`);
    else for (const s of states) process.stdout.write(`${s.runId} ${s.state}\n`);
    if (states.some((s) => s.state === 'failed')) return EXIT.failed;
    if (states.some((s) => s.state === 'awaiting_input')) return EXIT.parked;
    return EXIT.ok;
  });
}
