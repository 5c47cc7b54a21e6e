/**
 * What the synchronous facade costs (issue 18): the median µs of one round trip through
 * SyncPg (main thread → worker → server → worker → Atomics.notify) beside the same
 * statement on a plain async pg.Client, and a transaction of 6 INSERTs as 8 hops
 * (BEGIN, 6 runs, COMMIT) beside one (pipelined) batch. Starts its own throwaway clusters, with
 * fsync off and on. Run: node --import tsx bench/pg-roundtrip.ts [--n=2000]
 */
import pg from 'pg';
import { openSyncPg } from '../engine/store/pg/sync-pg.js';
import { startPostgres } from '../testkit/postgres.js';
import { median, now } from './stats.js';

const n = Number(process.argv.find((a) => a.startsWith('--n='))?.slice(4) ?? 2000);
const txN = Math.max(50, Math.floor(n / 5));

/** Median and 90th percentile of `times` timed calls of fn, in µs, after a warm-up of a tenth as many. */
function timeSync(times: number, fn: (i: number) => void): string {
  for (let i = 0; i < times / 10; i += 1) fn(-1 - i);
  const us: number[] = [];
  for (let i = 0; i < times; i += 1) {
    const start = now();
    fn(i);
    us.push((now() - start) * 1000);
  }
  return summary(us);
}

async function timeAsync(times: number, fn: (i: number) => Promise<unknown>): Promise<string> {
  for (let i = 0; i < times / 10; i += 1) await fn(-1 - i);
  const us: number[] = [];
  for (let i = 0; i < times; i += 1) {
    const start = now();
    await fn(i);
    us.push((now() - start) * 1000);
  }
  return summary(us);
}

function summary(us: number[]): string {
  const sorted = [...us].sort((a, b) => a - b);
  return `${median(us).toFixed(0)} µs (p90 ${sorted[Math.floor(sorted.length * 0.9)]!.toFixed(0)})`;
}

const rows: string[][] = [];
for (const fsync of [false, true]) {
  const cluster = await startPostgres({ fsync });
  const db = openSyncPg(cluster.url);
  const client = new pg.Client({ connectionString: cluster.url });
  await client.connect();
  db.exec('CREATE TABLE t (id BIGINT PRIMARY KEY, run_id TEXT NOT NULL, at BIGINT NOT NULL, body TEXT)');
  const row = (id: number) => [id, 'run-1', 1_764_633_600_000 + id, 'x'.repeat(64)];
  const insert = 'INSERT INTO t (id, run_id, at, body) VALUES ($1, $2, $3, $4)';
  let next = 0;
  const six = () => Array.from({ length: 6 }, () => row(next++));
  const label = `fsync=${fsync ? 'on' : 'off'}`;

  rows.push([label, 'SELECT 1, SyncPg.get', timeSync(n, () => db.get('SELECT 1 AS one'))]);
  rows.push([label, 'SELECT 1, async pg.Client', await timeAsync(n, () => client.query('SELECT 1 AS one'))]);
  rows.push([label, 'SELECT $1 (prepared), SyncPg.get', timeSync(n, (i) => db.get('SELECT $1::int AS one', [i]))]);
  rows.push([label, 'SELECT $1 (prepared), async pg.Client', await timeAsync(n, (i) => client.query({ name: 'one', text: 'SELECT $1::int AS one', values: [i] }))]);
  const tx = db.transaction((values: unknown[][]) => {
    for (const v of values) db.run(insert, v);
  });
  rows.push([label, '6 INSERTs in a transaction, SyncPg: 8 hops (BEGIN, 6 run, COMMIT)', timeSync(txN, () => tx(six()))]);
  rows.push([label, '6 INSERTs in a transaction, SyncPg: 1 batch', timeSync(txN, () => db.batch([{ sql: 'BEGIN' }, ...six().map((params) => ({ sql: insert, params })), { sql: 'COMMIT' }]))]);
  rows.push([label, '6 INSERTs in a transaction, async pg.Client (8 awaits)', await timeAsync(txN, async () => {
    await client.query('BEGIN');
    for (const values of six()) await client.query({ name: 'insert', text: insert, values });
    await client.query('COMMIT');
  })]);
  const piped = new pg.Client({ connectionString: cluster.url, pipeline: true });
  await piped.connect();
  rows.push([label, '6 INSERTs in a transaction, async pg.Client pipelined (8 queries at once)', await timeAsync(txN, () =>
    Promise.all([piped.query('BEGIN'), ...six().map((values) => piped.query({ name: 'insert', text: insert, values })), piped.query('COMMIT')]))]);
  db.close();
  await client.end();
  await piped.end();
  await cluster.stop();
}

console.log(`node ${process.version}, n=${n} (transactions: ${txN}); median and p90 of each call`);
console.log('| cluster | what | median |\n|---|---|---|');
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
