/**
 * `kowalski migrate` and `kowalski store copy` (docs/postgres.md, "Moving a store"):
 * offline tools on the run store, no engine started. Both work on the data folder
 * (KOWALSKI_HOME, or --data-dir) under its lock when they touch its SQLite file.
 */
import path from 'node:path';
import { KowalskiError } from '../../core/index.js';
import { DEFAULT_CONFIG, configuredPostgresUrl, copyStore, dataPaths, loadConfig, migrateStores, parseStoreSide } from '../../engine/index.js';
import type { MigratedStore } from '../../engine/index.js';
import { EXIT, dataDir } from './common.js';
import { progressLine } from './progress-line.js';

const folder = (opts: { dataDir?: string }) => (opts.dataDir === undefined ? dataDir() : path.resolve(opts.dataDir));
const label = (v: { version: number; name: string }) => `${String(v.version).padStart(3, '0')}_${v.name}`;

function migratedLine(s: MigratedStore): string {
  const what = s.kind === 'sqlite' ? `SQLite ${s.where}` : `PostgreSQL ${s.where}`;
  return s.applied.length === 0
    ? `${what}: nothing to apply (schema ${s.version})`
    : `${what}: applied ${s.applied.map(label).join(', ')} (schema ${s.version})`;
}

export function migrateCommand(opts: { url?: string; dataDir?: string; json?: boolean }): number {
  const home = folder(opts);
  const url = opts.url === undefined ? undefined : parseStoreSide(opts.url, '--url');
  if (url?.kind === 'sqlite') throw new KowalskiError('KW_ERR_USAGE', '--url takes a postgres:// address; without it, the data folder\'s stores are migrated');
  // With --url the data folder is not used: its config.toml is not read either.
  const config = url === undefined ? loadConfig(dataPaths(home).config) : DEFAULT_CONFIG;
  const stores = migrateStores({ dataDir: home, config, ...(url === undefined ? {} : { url: url.url }) });
  if (opts.json === true) process.stdout.write(`${JSON.stringify({ stores })}\n`);
  else process.stdout.write(`${stores.map(migratedLine).join('\n')}\n`);
  return EXIT.ok;
}

export function storeCopyCommand(opts: { from: string; to: string; force?: boolean; dataDir?: string; json?: boolean }): number {
  const home = folder(opts);
  const config = loadConfig(dataPaths(home).config);
  const line = progressLine('store copy', { json: opts.json === true });
  let report;
  try {
    report = copyStore({
      from: parseStoreSide(opts.from, '--from'), to: parseStoreSide(opts.to, '--to'), dataDir: home,
      leaseMs: config.store.leaseSecs * 1000, force: opts.force === true, onProgress: line.report,
    });
  } finally {
    line.end();
  }
  if (opts.json === true) {
    process.stdout.write(`${JSON.stringify(report)}\n`);
    return EXIT.ok;
  }
  const width = Math.max(...report.tables.map((t) => t.table.length));
  const lines = [`copied ${report.from} → ${report.to}, in one transaction:`];
  for (const t of report.tables) lines.push(`  ${t.table.padEnd(width)}  ${String(t.rows).padStart(8)}`);
  lines.push(`checked: every table holds as many rows as the source's; ${report.runsVerified} runs' events fold to the state their runs row holds`);
  if (report.migrated.from.length > 0) lines.push(`migrated the source first: ${report.migrated.from.join(', ')}`);
  if (report.migrated.to.length > 0) lines.push(`migrated the target first: ${report.migrated.to.join(', ')}`);
  lines.push('leases were not copied: a run is claimed by the first node that needs it');
  const using = parseStoreSide(opts.to, '--to');
  if (using.kind === 'postgres' && configuredPostgresUrl(config) !== opts.to) lines.push(`to use it: [store] url = "${opts.to.replace(/:[^:@/]*@/, ':…@')}" in config.toml (or KOWALSKI_DATABASE_URL)`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}
