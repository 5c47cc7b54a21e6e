/**
 * The Postgres side of the tests: one throwaway cluster per test process (started at its
 * first use, stopped at exit), a fresh database per data folder. With
 * KOWALSKI_TEST_STORE=postgres every engine `testEngine` makes keeps its runs there, so a
 * test file runs on both stores (see the `pg.*` wrappers beside the tests they repeat).
 */
import { freshDatabase, startPostgres } from './postgres.js';
import type { Postgres } from './postgres.js';

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
  return freshDatabase(pg.url, `kw_${process.pid}_${++databases}`);
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
