/**
 * The Postgres side of the tests: one throwaway cluster per test process (started at its
 * first use, stopped at exit), a fresh database per data folder. With
 * KOWALSKI_TEST_STORE=postgres every engine `testEngine` makes keeps its runs there, so a
 * test file runs on both stores (see the `pg.*` wrappers beside the tests they repeat).
 */
import path from 'node:path';
import pg from 'pg';
import { DEFAULT_CONFIG } from '../engine/index.js';
import type { EngineConfig } from '../engine/index.js';
import { createDatabase, startPostgres } from './postgres.js';
import type { Postgres } from './postgres.js';
import { waitFor } from './wait.js';

let cluster: Promise<Postgres> | undefined;
let databases = 0;
/** Data folder → its database: an engine opened again on the same folder finds its runs. */
const byDataDir = new Map<string, string>();

export const onPostgres = (): boolean => process.env.KOWALSKI_TEST_STORE === 'postgres';

/** The process's cluster. */
export function sharedPostgres(): Promise<Postgres> {
  cluster ??= startPostgres();
  return cluster;
}

/** A new empty database in the process's cluster. */
export async function freshPostgresUrl(): Promise<string> {
  const pg = await sharedPostgres();
  return createDatabase(pg.url, `kw_${process.pid}_${++databases}`);
}

/** The database of a data folder (made at the first call). */
export async function postgresUrlFor(dataDir: string): Promise<string> {
  let url = byDataDir.get(dataDir);
  if (url === undefined) {
    url = await freshPostgresUrl();
    byDataDir.set(dataDir, url);
  }
  return url;
}

/** The database of a data folder an engine was opened on, if any. */
export const postgresUrlOf = (dataDir: string): string | undefined => byDataDir.get(dataDir);

/** The `[store]` config of an engine a test opens on `dataDir`: its runs in the folder's database when KOWALSKI_TEST_STORE=postgres, else SQLite. */
export async function testStoreConfig(dataDir: string): Promise<EngineConfig['store']> {
  return onPostgres() ? { ...DEFAULT_CONFIG.store, url: await postgresUrlFor(path.resolve(dataDir)) } : DEFAULT_CONFIG.store;
}

/**
 * The environment a child process opening an engine on `dataDir` needs to reach the same
 * run store (KOWALSKI_DATABASE_URL, which the config honours): the folder's database on
 * Postgres, nothing on SQLite. A child killed and started again on the folder gets the same one.
 */
export async function childStoreEnv(dataDir: string): Promise<Record<string, string>> {
  return onPostgres() ? { KOWALSKI_DATABASE_URL: await postgresUrlFor(path.resolve(dataDir)) } : {};
}

/**
 * Resolves once no node holds a live lease in the database at `url`: a killed node's leases
 * lapse by the database's clock, and only then can a restart on its data folder take its
 * runs back in `recover()` (before, they are still that node's). Bounded.
 */
export async function leasesLapsed(url: string, limitMs = 30_000): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const live = async (): Promise<number> => (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM run_leases WHERE node_id IS NOT NULL AND expires_at > kw_now()')).rows[0]!.n;
    await waitFor(async () => (await live()) === 0, `the leases of a killed node in ${url} to lapse`, limitMs);
  } finally {
    await client.end();
  }
}

/** The lease a child process killed on purpose holds its runs with, s: short, so that its restart waits little for them to lapse. */
export const CHILD_LEASE_SECS = 2;
