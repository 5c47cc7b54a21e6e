/**
 * Read a test engine's run store from outside the engine, through a connection of its
 * own — its SQLite file, or its Postgres database — to check what is committed (not what
 * the engine holds in memory). SQL with `?` placeholders, as SQLite writes them.
 */
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import type { Engine } from '../../engine/index.js';
import { postgresUrlOf } from '../../testkit/pg-store.js';

export async function readCommitted<R>(engine: Engine, sql: string, params: unknown[] = []): Promise<R[]> {
  return readCommittedAt<R>(engine.paths.dataDir, sql, params);
}

/** The same for the data folder `dataDir` (an engine on it may be closed, or running in another process). */
export async function readCommittedAt<R>(dataDir: string, sql: string, params: unknown[] = []): Promise<R[]> {
  const url = postgresUrlOf(path.resolve(dataDir));
  if (url === undefined) {
    const db = new Database(path.join(dataDir, 'kowalski.sqlite'), { readonly: true });
    try {
      return db.prepare<unknown[], R>(sql).all(...params);
    } finally {
      db.close();
    }
  }
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    let n = 0;
    return (await client.query(sql.replace(/\?/g, () => `$${++n}`), params)).rows as R[];
  } finally {
    await client.end();
  }
}
