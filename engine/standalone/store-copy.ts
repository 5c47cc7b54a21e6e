/**
 * `kowalski store copy --from … --to …`: open both ends (`sqlite`: the data folder's
 * kowalski.sqlite, held under the data folder's lock for the whole copy, since an engine
 * would write meanwhile; `postgres://…`: a database), migrate them as starting kowalski
 * would, refuse a Postgres end that live nodes use (unless forced), then copy
 * (store/copy.ts). Leases are not copied: a run with no lease row is claimed on first use.
 */
import fs from 'node:fs';
import { KowalskiError } from '../../core/index.js';
import { systemClock } from '../base/clock.js';
import type { Clock } from '../base/clock.js';
import type { Progress } from '../../contract/progress.js';
import { dataPaths } from '../base/data-dir.js';
import type { Migration } from '../schema/index.js';
import { pgCopyEnd, sqliteCopyEnd } from '../store/copy-ends.js';
import type { CopyEnd } from '../store/copy-ends.js';
import { copyRunStore } from '../store/copy.js';
import type { CopyReport } from '../store/copy.js';
import { openDatabase } from '../store/database.js';
import { lockDataDir } from '../store/lock.js';
import { migratePg } from '../store/pg/migrate.js';
import { pgNodes } from '../store/pg/nodes.js';
import { PG_MIGRATIONS } from '../store/pg/schema/index.js';
import { describeTarget, openSyncPg } from '../store/pg/sync-pg.js';
import type { SyncPg } from '../store/pg/sync-pg.js';

/** One end of a copy: the data folder's SQLite file, or a Postgres database. */
export type StoreSide = { kind: 'sqlite' } | { kind: 'postgres'; url: string };

/** `sqlite`, or a postgres:// (postgresql://) address; `flag` names the option in the refusal. */
export function parseStoreSide(value: string, flag: string): StoreSide {
  if (value === 'sqlite') return { kind: 'sqlite' };
  const protocol = URL.canParse(value) ? new URL(value).protocol : '';
  if (protocol === 'postgres:' || protocol === 'postgresql:') return { kind: 'postgres', url: value };
  throw new KowalskiError('KW_ERR_USAGE', `${flag} takes "sqlite" (the data folder's kowalski.sqlite) or a PostgreSQL address postgres://user@host:5432/database, not ${JSON.stringify(describeArg(value))}`);
}

export interface StoreCopyOptions {
  from: StoreSide;
  to: StoreSide;
  /** The data folder whose kowalski.sqlite `sqlite` means. */
  dataDir: string;
  /** How long a node's heartbeat counts as live, ms (`[store] lease_secs`; default 10 000). */
  leaseMs?: number;
  /** Copy even while live nodes use a Postgres end. */
  force?: boolean;
  /** Rows per page and per insert (default 1,000). */
  chunk?: number;
  clock?: Clock;
  /** Told of the rows copied so far (phase `rows`, total unknown, item the table); default none. */
  onProgress?: Progress;
}

export interface StoreCopyResult extends CopyReport {
  /** Migrations applied to each end before the copy (empty: it was current). */
  migrated: { from: string[]; to: string[] };
}

interface OpenEnd {
  end: CopyEnd;
  applied: readonly Migration[];
  close(): void;
}

export function copyStore(options: StoreCopyOptions): StoreCopyResult {
  const { from, to } = options;
  const clock = options.clock ?? systemClock;
  if (from.kind === 'sqlite' && to.kind === 'sqlite') throw new KowalskiError('KW_ERR_USAGE', '--from and --to are both the data folder\'s SQLite file: one of them must be a postgres:// address');
  if (from.kind === 'postgres' && to.kind === 'postgres' && describeTarget(from.url) === describeTarget(to.url)) {
    throw new KowalskiError('KW_ERR_USAGE', `--from and --to are the same database (${describeTarget(from.url)})`);
  }
  const opened: OpenEnd[] = [];
  try {
    const source = openEnd(from, 'source', options, clock);
    opened.push(source);
    const target = openEnd(to, 'target', options, clock);
    opened.push(target);
    const report = copyRunStore(source.end, target.end, {
      ...(options.chunk === undefined ? {} : { chunk: options.chunk }),
      ...(options.onProgress === undefined ? {} : { onProgress: options.onProgress }),
    });
    const names = (applied: readonly Migration[]) => applied.map((m) => `${String(m.version).padStart(3, '0')}_${m.name}`);
    return { ...report, migrated: { from: names(source.applied), to: names(target.applied) } };
  } finally {
    for (const o of opened.reverse()) o.close();
  }
}

function openEnd(side: StoreSide, role: 'source' | 'target', options: StoreCopyOptions, clock: Clock): OpenEnd {
  if (side.kind === 'sqlite') {
    const file = dataPaths(options.dataDir).database;
    if (role === 'source' && !fs.existsSync(file)) {
      throw new KowalskiError('KW_ERR_USAGE', `there is no run store to copy at ${file} (set KOWALSKI_HOME, or --data-dir, to the data folder that holds kowalski.sqlite)`, { where: { file } });
    }
    // An engine on this folder would write while the copy reads, or write into the copy: the copy holds the folder as an engine does.
    const lock = lockDataDir(options.dataDir, { pid: process.pid, startedAt: clock.now() });
    try {
      let applied: readonly Migration[] = [];
      const db = openDatabase(file, { clock, onMigrated: (a) => void (applied = a) });
      return { end: sqliteCopyEnd(db, file), applied, close: () => { db.close(); lock.release(); } };
    } catch (err) {
      lock.release();
      throw err;
    }
  }
  const where = describeTarget(side.url);
  const pg = openSyncPg(side.url, { applicationName: `kowalski store copy (${role})` });
  try {
    const applied = migratePg(pg, where, PG_MIGRATIONS, clock);
    if (options.force !== true) refuseLiveNodes(pg, where, role, options.leaseMs ?? 10_000);
    return { end: pgCopyEnd(pg, where), applied, close: () => pg.close() };
  } catch (err) {
    pg.close();
    throw err;
  }
}

/** Nodes whose heartbeat is younger than a lease and that did not stop: they may write while the copy runs. */
function refuseLiveNodes(pg: SyncPg, where: string, role: 'source' | 'target', leaseMs: number): void {
  const live = pgNodes(pg).list(leaseMs).filter((n) => n.stoppedAt === null && n.heartbeatAgeMs < leaseMs);
  if (live.length === 0) return;
  const who = live.map((n) => `${n.id} (${n.name}${n.url === null ? '' : `, ${n.url}`}, pid ${n.pid}, holds ${n.runsHeld} runs)`).join('; ');
  throw new KowalskiError(
    'KW_ERR_STORE_COPY_NODES_LIVE',
    `${live.length === 1 ? 'a kowalski node is' : `${live.length} kowalski nodes are`} using the ${role} ${where}: ${who}. ` +
      'They would write while the copy runs: stop them first (or wait until their heartbeats are older than [store] lease_secs), or pass --force. Nothing was copied.',
  );
}

/** A refused --from/--to, for the message: an address's password is not echoed. */
function describeArg(value: string): string {
  return URL.canParse(value) && new URL(value).password !== '' ? `${new URL(value).protocol}//…@${new URL(value).host}${new URL(value).pathname}` : value;
}
