/** `run`, `approve`, `deny`, `cancel`, `resume`: drive runs in the foreground with an embedded engine. */
import type { Engine } from '../../engine/index.js';
import { findHorde, formatRecovery } from '../../engine/index.js';
import { EXIT, dataDir, exitFor, parseInputs, runJson, withEngine } from './common.js';
import { describeParked, followRun, recordEvents } from './progress.js';

export interface JsonFlag {
  json?: boolean;
}

/** Follow the run until it finishes or parks; print the outcome; return the exit status. */
async function finish(engine: Engine, runId: string, json: boolean, missed: ReturnType<typeof recordEvents>): Promise<number> {
  const stop = json ? () => undefined : followRun(engine, runId, process.stderr, missed);
  if (json) missed.off();
  const state = await engine.waitForRun(runId);
  stop();
  const view = engine.getRun(runId);
  if (json) process.stdout.write(`${JSON.stringify(runJson(view))}\n`);
  else if (state === 'awaiting_input') process.stdout.write(`${describeParked(view)}\n`);
  else if (state === 'failed') process.stdout.write(`run ${runId} failed: ${view.run.error ?? 'see kowalski show'} [${view.run.errorCode ?? '?'}]\n`);
  else process.stdout.write(`run ${runId} ${state}\n`);
  return exitFor(state);
}

export async function runCommand(ref: string, opts: JsonFlag & { input?: string[] }): Promise<number> {
  const input = parseInputs(opts.input ?? []);
  // Find the horde before taking the data directory: a typo says "not found", even while another engine runs.
  const { horde } = await findHorde(ref, { dataDir: dataDir() });
  return withEngine(async (engine) => {
    const missed = recordEvents(engine); // before the call: it commits the first events
    const runId = await engine.startRun(horde, input, { provenance: 'cli' });
    return finish(engine, runId, opts.json === true, missed);
  });
}

export function approveCommand(runId: string, opts: JsonFlag & { step?: string }): Promise<number> {
  return withEngine(async (engine) => {
    const missed = recordEvents(engine); // before the call: it commits the first events
    await engine.approve(runId, opts.step === undefined ? {} : { step: opts.step });
    return finish(engine, runId, opts.json === true, missed);
  });
}

export function denyCommand(runId: string, opts: JsonFlag & { step?: string; reason?: string }): Promise<number> {
  return withEngine(async (engine) => {
    const missed = recordEvents(engine); // before the call: it commits the first events
    await engine.deny(runId, { reason: opts.reason ?? 'denied by the operator', ...(opts.step === undefined ? {} : { step: opts.step }) });
    return finish(engine, runId, opts.json === true, missed);
  });
}

export function cancelCommand(runId: string, opts: JsonFlag & { reason?: string }): Promise<number> {
  return withEngine(async (engine) => {
    await engine.cancel(runId, opts.reason === undefined ? {} : { reason: opts.reason });
    const view = engine.getRun(runId);
    if (opts.json === true) process.stdout.write(`${JSON.stringify(runJson(view))}\n`);
    else process.stdout.write(`run ${runId} cancelled\n`);
    return EXIT.ok;
  });
}

export function resumeCommand(opts: JsonFlag): Promise<number> {
  return withEngine(async (engine) => {
    const summary = await engine.recover();
    if (opts.json !== true) process.stderr.write(`${formatRecovery(summary)}\n`);
    const states = await Promise.all(summary.resumed.map(async (runId) => ({ runId, state: await engine.waitForRun(runId) })));
    if (opts.json === true) process.stdout.write(`${JSON.stringify({ ...summary, runs: states })}\n`);
    else for (const s of states) process.stdout.write(`${s.runId} ${s.state}\n`);
    if (states.some((s) => s.state === 'failed')) return EXIT.failed;
    if (states.some((s) => s.state === 'awaiting_input')) return EXIT.parked;
    return EXIT.ok;
  });
}
