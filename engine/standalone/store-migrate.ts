/**
 * `kowalski migrate`: apply the run store's missing migrations without starting an
 * engine. Without a URL: the data folder's SQLite file, under the data folder's lock (one
 * engine per folder: an engine that runs has migrated it and must not see its schema
 * change under it), and the Postgres store the folder is configured with. With a URL:
 * only that Postgres database, which nodes may be using meanwhile (migratePg takes an
 * advisory lock, so nodes starting at the same time apply each migration once).
 */
import { systemClock } from '../base/clock.js';
import type { Clock } from '../base/clock.js';
import { configuredPostgresUrl } from '../config.js';
import type { EngineConfig } from '../config.js';
import { dataPaths } from '../base/data-dir.js';
import { MIGRATIONS } from '../schema/index.js';
import type { Migration } from '../schema/index.js';
import { openDatabase } from '../store/database.js';
import { lockDataDir } from '../store/lock.js';
import { migratePg } from '../store/pg/migrate.js';
import { PG_MIGRATIONS } from '../store/pg/schema/index.js';
import { describeTarget, openSyncPg } from '../store/pg/sync-pg.js';

export interface MigratedStore {
  kind: 'sqlite' | 'postgres';
  /** The file, or host:port/database (never a password). */
  where: string;
  /** What this call applied, oldest first; empty: nothing was missing. */
  applied: Array<{ version: number; name: string }>;
  /** The schema version the store is at now. */
  version: number;
}

export interface MigrateOptions {
  dataDir: string;
  /** Only this Postgres database; the data folder is left alone. */
  url?: string;
  /** The data folder's config (its `[store] url` and `synchronous`); unused with `url`. */
  config: EngineConfig;
  env?: NodeJS.ProcessEnv;
  clock?: Clock;
}

const newest = (migrations: readonly Migration[]) => Math.max(0, ...migrations.map((m) => m.version));
const named = (applied: readonly Migration[]) => applied.map(({ version, name }) => ({ version, name }));

export function migratePostgresAt(url: string, clock: Clock = systemClock): MigratedStore {
  const where = describeTarget(url);
  const pg = openSyncPg(url, { applicationName: 'kowalski migrate' });
  try {
    return { kind: 'postgres', where, applied: named(migratePg(pg, where, PG_MIGRATIONS, clock)), version: newest(PG_MIGRATIONS) };
  } finally {
    pg.close();
  }
}

export function migrateStores(options: MigrateOptions): MigratedStore[] {
  const clock = options.clock ?? systemClock;
  if (options.url !== undefined) return [migratePostgresAt(options.url, clock)];
  const home = options.dataDir;
  const lock = lockDataDir(home, { pid: process.pid, startedAt: clock.now() });
  try {
    const file = dataPaths(home).database;
    let applied: readonly Migration[] = [];
    openDatabase(file, { clock, synchronous: options.config.store.synchronous, onMigrated: (a) => void (applied = a) }).close();
    const out: MigratedStore[] = [{ kind: 'sqlite', where: file, applied: named(applied), version: newest(MIGRATIONS) }];
    const url = configuredPostgresUrl(options.config, options.env);
    if (url !== undefined) out.push(migratePostgresAt(url, clock));
    return out;
  } finally {
    lock.release();
  }
}
