/** `runs` and `show`: read the history — from the server when one owns the data directory, else the database without taking the engine lock. */
import path from 'node:path';
import { KowalskiError } from '../../core/index.js';
import { RUN_STATES } from '../../engine/index.js';
import type { RunRow } from '../../engine/index.js';
import { withReader } from './backend.js';
import { EXIT, formatResults, runJson } from './common.js';
import { describeParked } from './progress.js';

function duration(r: RunRow): string {
  const end = r.finishedAt ?? Date.now();
  return `${((end - r.createdAt) / 1000).toFixed(1)}s`;
}

/** The most runs one listing shows. */
const MAX_LIMIT = 500;

function parseLimit(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1) throw new KowalskiError('KW_ERR_USAGE', `--limit must be a whole number ≥ 1, not ${JSON.stringify(value)}`);
  return Math.min(n, MAX_LIMIT);
}

export async function runsCommand(opts: { status?: string; horde?: string; limit?: string; json?: boolean }): Promise<number> {
  if (opts.status !== undefined && !(RUN_STATES as readonly string[]).includes(opts.status)) {
    throw new KowalskiError('KW_ERR_USAGE', `--status must be one of ${RUN_STATES.join(', ')}`);
  }
  const filter = {
    ...(opts.status === undefined ? {} : { status: opts.status as RunRow['state'] }),
    ...(opts.horde === undefined ? {} : { horde: opts.horde }),
    ...(opts.limit === undefined ? {} : { limit: parseLimit(opts.limit) }),
  };
  const rows = await withReader((history) => history.listRuns(filter));
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

export async function showCommand(runId: string, opts: { json?: boolean }): Promise<number> {
  const view = await withReader((history) => history.getRun(runId));
  if (opts.json === true) {
    process.stdout.write(`${JSON.stringify(runJson(view))}\n`);
    return EXIT.ok;
  }
  const r = view.run;
  process.stdout.write(`run ${r.id}: ${r.state}\nhorde: ${r.hordeId} (${r.hordeHash.slice(0, 12)})\nstarted by: ${r.provenance} at ${new Date(r.createdAt).toISOString()}\n`);
  if (Object.keys(r.input).length > 0) process.stdout.write(`input: ${JSON.stringify(r.input)}\n`);
  if (r.error !== null) process.stdout.write(`error: ${r.error} [${r.errorCode}]\n`);
  process.stdout.write(formatResults(view));
  for (const s of view.steps) {
    const dur = s.durationMs === null ? '' : `${(s.durationMs / 1000).toFixed(2)}s`;
    process.stdout.write(`  ${s.name.padEnd(20)} ${s.state.padEnd(11)} #${s.attempt} ${dur.padStart(8)}${s.error === null ? '' : `  ${s.error.message} [${s.error.code}]`}\n`);
  }
  const artifacts = view.steps.filter((s) => s.artifact !== null);
  if (artifacts.length > 0) {
    process.stdout.write('artifacts:\n');
    for (const s of artifacts) process.stdout.write(`  ${s.name.padEnd(20)} ${path.join(view.workdir, s.artifact!)}\n`);
  }
  if (view.pending.length > 0 || (view.budget.parked !== null && r.state === 'awaiting_input')) process.stdout.write(`${describeParked(view)}\n`);
  return EXIT.ok;
}
