/** `runs` and `show`: read the history without taking the engine lock. */
import { KowalskiError } from '../../core/index.js';
import { RUN_STATES, openHistory } from '../../engine/index.js';
import type { RunRow } from '../../engine/index.js';
import { EXIT, dataDir, runJson } from './common.js';
import { describeParked } from './progress.js';

function duration(r: RunRow): string {
  const end = r.finishedAt ?? Date.now();
  return `${((end - r.createdAt) / 1000).toFixed(1)}s`;
}

export function runsCommand(opts: { status?: string; horde?: string; limit?: string; json?: boolean }): number {
  if (opts.status !== undefined && !(RUN_STATES as readonly string[]).includes(opts.status)) {
    throw new KowalskiError('KW_ERR_USAGE', `--status must be one of ${RUN_STATES.join(', ')}`);
  }
  const history = openHistory(dataDir());
  const rows = history === undefined ? [] : history.listRuns({
    ...(opts.status === undefined ? {} : { status: opts.status as RunRow['state'] }),
    ...(opts.horde === undefined ? {} : { horde: opts.horde }),
    ...(opts.limit === undefined ? {} : { limit: Number(opts.limit) }),
  });
  history?.close();
  if (opts.json === true) {
    process.stdout.write(`${JSON.stringify(rows)}\n`);
    return EXIT.ok;
  }
  if (rows.length === 0) {
    const filters = [opts.status === undefined ? '' : ` --status ${opts.status}`, opts.horde === undefined ? '' : ` --horde ${opts.horde}`].join('');
    process.stdout.write(filters === '' ? 'no runs yet: start one with `kowalski run <horde>` (see `kowalski hordes`)\n' : `no runs match${filters}\n`);
    return EXIT.ok;
  }
  for (const r of rows) {
    process.stdout.write(`${r.id}  ${r.state.padEnd(14)} ${r.hordeId.padEnd(20)} ${r.provenance.padEnd(10)} ${new Date(r.createdAt).toISOString()}  ${duration(r)}\n`);
  }
  return EXIT.ok;
}

export function showCommand(runId: string, opts: { json?: boolean }): number {
  const history = openHistory(dataDir());
  if (history === undefined) throw new KowalskiError('KW_ERR_RUN_NOT_FOUND', `no run ${runId}: ${dataDir()} holds no runs yet`);
  try {
    const view = history.getRun(runId);
    if (opts.json === true) {
      process.stdout.write(`${JSON.stringify(runJson(view))}\n`);
      return EXIT.ok;
    }
    const r = view.run;
    process.stdout.write(`run ${r.id}: ${r.state}\nhorde: ${r.hordeId} (${r.hordeHash.slice(0, 12)})\nstarted by: ${r.provenance} at ${new Date(r.createdAt).toISOString()}\n`);
    if (Object.keys(r.input).length > 0) process.stdout.write(`input: ${JSON.stringify(r.input)}\n`);
    if (r.error !== null) process.stdout.write(`error: ${r.error} [${r.errorCode}]\n`);
    for (const s of view.steps) {
      const dur = s.durationMs === null ? '' : `${(s.durationMs / 1000).toFixed(2)}s`;
      process.stdout.write(`  ${s.name.padEnd(20)} ${s.state.padEnd(11)} #${s.attempt} ${dur.padStart(8)}  ${s.artifact ?? ''}${s.error === null ? '' : `  ${s.error.message} [${s.error.code}]`}\n`);
    }
    if (view.pending.length > 0) process.stdout.write(`${describeParked(view)}\n`);
    return EXIT.ok;
  } finally {
    history.close();
  }
}
