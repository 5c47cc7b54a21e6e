/**
 * The Postgres floors (issue 18): one INSERT committed on its own per step, on the
 * bench's throwaway cluster (fsync on), through the engine's synchronous client (SyncPg:
 * a worker thread, the caller blocked on Atomics.wait) and through a plain async `pg`
 * client. The least a durable step on Postgres could cost, measured in the same run.
 */
import pg from 'pg';
import { openSyncPg } from '../engine/store/pg/sync-pg.js';
import { now } from './stats.js';

/** An event-sized row, as in the SQLite floor (floor.ts). */
const BODY = JSON.stringify({ type: 'step.finished', step: 's3', attempt: 1, outcome: 'pass', durationMs: 1, summary: 'x'.repeat(200) });
const TABLE = 'CREATE TABLE IF NOT EXISTS floor_events (run_id TEXT NOT NULL, seq INTEGER NOT NULL, at BIGINT NOT NULL, body TEXT NOT NULL, PRIMARY KEY (run_id, seq))';
const INSERT = 'INSERT INTO floor_events (run_id, seq, at, body) VALUES ($1, $2, $3, $4)';

/** Keys never used twice across samples on one database. */
let sample = 0;

/** µs per commit: `commits` autocommitted INSERTs (each its own transaction: one round trip, one WAL flush) through SyncPg. */
export function pgSyncFloor(url: string, commits: number): number {
  const db = openSyncPg(url, { applicationName: 'kowalski bench floor' });
  try {
    db.exec(TABLE);
    const run = `s${++sample}`;
    for (let i = 0; i < 20; i++) db.run(INSERT, [`${run}-warmup`, i, Date.now(), BODY]);
    const t0 = now();
    for (let i = 0; i < commits; i++) db.run(INSERT, [`${run}-r${Math.floor(i / 6)}`, i % 6, Date.now(), BODY]);
    return ((now() - t0) * 1000) / commits;
  } finally {
    db.close();
  }
}

/** The same through a plain async pg.Client (the statement prepared once, as SyncPg's worker does). */
export async function pgAsyncFloor(url: string, commits: number): Promise<number> {
  const client = new pg.Client({ connectionString: url, application_name: 'kowalski bench floor' });
  await client.connect();
  try {
    await client.query(TABLE);
    const run = `a${++sample}`;
    const insert = (values: unknown[]) => client.query({ name: 'floor-insert', text: INSERT, values });
    for (let i = 0; i < 20; i++) await insert([`${run}-warmup`, i, Date.now(), BODY]);
    const t0 = now();
    for (let i = 0; i < commits; i++) await insert([`${run}-r${Math.floor(i / 6)}`, i % 6, Date.now(), BODY]);
    return ((now() - t0) * 1000) / commits;
  } finally {
    await client.end();
  }
}
