/**
 * SyncPg (engine/store/pg/sync-pg.ts) against a real throwaway cluster: the synchronous
 * calls, transactions like better-sqlite3's, Postgres errors with their SQLSTATE, and a
 * store that goes away (a timeout, a killed server, a terminated backend) failing fast
 * with KW_ERR_STORE_UNAVAILABLE instead of hanging. One cluster serves the file; each
 * test has its own database.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { KowalskiError } from '../../core/index.js';
import { PostgresError, openSyncPg, type SyncPg } from '../../engine/store/pg/sync-pg.js';
import { testSyncPgModule } from '../../testkit/dist.js';
import { cleanups } from '../../testkit/cleanup.js';
import { REPO } from '../../testkit/cli.js';
import { freePort } from '../../testkit/free-port.js';
import { freshDatabase, postgresBin, startPostgres, type Postgres } from '../../testkit/postgres.js';

let cluster: Postgres;
before(async () => {
  cluster = await startPostgres();
});
after(() => cluster?.stop());

let databases = 0;
function open(t: Parameters<typeof cleanups>[0], options?: Parameters<typeof openSyncPg>[1]): SyncPg {
  const db = openSyncPg(freshDatabase(cluster.url, `t${++databases}`), { module: testSyncPgModule(), ...options });
  cleanups(t)(() => db.close());
  return db;
}

/** Runs fn, which must throw KW_ERR_STORE_UNAVAILABLE; returns the error and how long the throw took, in ms. */
function unavailable(fn: () => unknown): { err: KowalskiError; ms: number } {
  const start = Date.now();
  try {
    fn();
  } catch (err) {
    assert.ok(err instanceof KowalskiError, `expected a KowalskiError, got ${String(err)}`);
    assert.equal(err.code, 'KW_ERR_STORE_UNAVAILABLE');
    assert.equal(err.retryable, true);
    return { err, ms: Date.now() - start };
  }
  assert.fail('the call did not throw');
}

test('all, get, run, batch and exec answer synchronously; int8 comes back as a number', (t) => {
  const db = open(t);
  db.exec('CREATE TABLE notes (id BIGINT PRIMARY KEY, at BIGINT NOT NULL, body TEXT); CREATE INDEX notes_at ON notes (at)');
  const at = 1_764_633_600_123; // a millisecond timestamp, past 2^31
  assert.equal(db.run('INSERT INTO notes (id, at, body) VALUES ($1, $2, $3)', [1, at, 'one']), 1);
  assert.equal(db.run('INSERT INTO notes (id, at, body) VALUES ($1, $2, $3), ($4, $5, $6)', [2, at + 1, 'two', 3, at + 2, null]), 2);
  assert.deepEqual(db.get('SELECT id, at, body FROM notes WHERE id = $1', [1]), { id: 1, at, body: 'one' });
  assert.equal(db.get('SELECT id FROM notes WHERE id = $1', [99]), undefined);
  assert.deepEqual(db.all<{ id: number }>('SELECT id FROM notes ORDER BY id').map((r) => r.id), [1, 2, 3]);
  assert.deepEqual(db.get('SELECT count(*) AS n, max(at) AS last FROM notes'), { n: 3, last: at + 2 });
  assert.equal(db.run('UPDATE notes SET body = $1 WHERE at > $2', ['later', at]), 2);

  const [inserted, counted, selected] = db.batch([
    { sql: 'INSERT INTO notes (id, at, body) VALUES ($1, $2, $3) RETURNING id', params: [4, at + 3, 'four'] },
    { sql: 'SELECT count(*) AS n FROM notes' },
    { sql: 'SELECT body FROM notes WHERE id = $1', params: [2] },
  ]);
  assert.deepEqual([inserted, counted, selected], [[{ id: 4 }], [{ n: 4 }], [{ body: 'later' }]]);

  assert.throws(() => db.get('SELECT 9007199254740993::int8 AS big'), /int8 value 9007199254740993 is beyond Number\.MAX_SAFE_INTEGER/);
  assert.deepEqual(db.get('SELECT 9007199254740993::int8::text AS big'), { big: '9007199254740993' }, 'the connection is usable after it');
});

test('a transaction commits, and rolls back and rethrows when its function throws: its rows are gone', (t) => {
  const db = open(t);
  db.exec('CREATE TABLE runs (id TEXT PRIMARY KEY, n INT NOT NULL)');
  const insert = db.transaction((id: string, n: number) => {
    db.run('INSERT INTO runs VALUES ($1, $2)', [id, n]);
    db.run('INSERT INTO runs VALUES ($1, $2)', [`${id}-b`, n + 1]);
    return n;
  });
  assert.equal(insert('a', 1), 1);
  const boom = new Error('boom');
  const failing = db.transaction(() => {
    db.run('INSERT INTO runs VALUES ($1, $2)', ['c', 3]);
    throw boom;
  });
  assert.throws(() => failing(), (err) => err === boom, 'the very error is rethrown');
  const promising = db.transaction(async () => {
    db.run('INSERT INTO runs VALUES ($1, $2)', ['d', 4]);
    await Promise.resolve();
  });
  assert.throws(() => promising(), /cannot return a promise/);
  assert.deepEqual(db.all<{ id: string }>('SELECT id FROM runs ORDER BY id').map((r) => r.id), ['a', 'a-b']);
  // Inside a transaction left open, now() would be the time of its BEGIN.
  assert.equal(db.get<{ fresh: boolean }>('SELECT now() = statement_timestamp() AS fresh')?.fresh, true, 'no transaction is left open');
});

test('a nested transaction is a savepoint: its throw undoes only its own rows', (t) => {
  const db = open(t);
  db.exec('CREATE TABLE steps (name TEXT PRIMARY KEY)');
  const add = (name: string) => db.run('INSERT INTO steps VALUES ($1)', [name]);
  const inner = db.transaction((name: string) => {
    add(name);
    if (name === 'bad') throw new Error('inner failed');
  });
  const outer = db.transaction(() => {
    add('first');
    inner('kept');
    assert.throws(() => inner('bad'), /inner failed/);
    // A unique violation aborts a Postgres transaction; inside a savepoint it undoes only the savepoint.
    assert.throws(() => inner('first'), (err) => err instanceof PostgresError && err.code === '23505');
    add('last');
  });
  outer();
  assert.deepEqual(db.all<{ name: string }>('SELECT name FROM steps ORDER BY name').map((r) => r.name), ['first', 'kept', 'last']);
});

test('a unique violation carries SQLSTATE 23505, its detail and its constraint; the connection stays usable', (t) => {
  const db = open(t);
  db.exec('CREATE TABLE events (run_id TEXT, seq INT, CONSTRAINT events_run_seq UNIQUE (run_id, seq))');
  db.run('INSERT INTO events VALUES ($1, $2)', ['r1', 1]);
  assert.throws(() => db.run('INSERT INTO events VALUES ($1, $2)', ['r1', 1]), (err) => {
    assert.ok(err instanceof PostgresError);
    assert.equal(err.code, '23505');
    assert.equal(err.constraint, 'events_run_seq');
    assert.equal(err.table, 'events');
    assert.match(err.detail ?? '', /\(run_id, seq\)=\(r1, 1\) already exists/);
    assert.match(err.message, /duplicate key value violates unique constraint "events_run_seq"/);
    return true;
  });
  assert.throws(
    () => db.batch([{ sql: 'INSERT INTO events VALUES ($1, $2)', params: ['r1', 2] }, { sql: 'INSERT INTO events VALUES ($1, $2)', params: ['r1', 1] }]),
    (err) => err instanceof PostgresError && err.code === '23505' && err.batchIndex === 1,
  );
  assert.throws(() => db.all('SELEKT 1'), (err) => err instanceof PostgresError && err.code === '42601');
  assert.deepEqual(db.all('SELECT seq FROM events ORDER BY seq'), [{ seq: 1 }, { seq: 2 }], 'outside a transaction each statement stands alone');
});

test('a batch is pipelined: BEGIN … COMMIT around a failing statement commits none of it and leaves no transaction open', (t) => {
  const db = open(t);
  db.exec('CREATE TABLE events (run_id TEXT, seq INT, PRIMARY KEY (run_id, seq))');
  const insert = (seq: number) => ({ sql: 'INSERT INTO events VALUES ($1, $2) RETURNING seq', params: ['r1', seq] });
  assert.deepEqual(db.batch([{ sql: 'BEGIN' }, insert(1), insert(2), { sql: 'COMMIT' }]), [[], [{ seq: 1 }], [{ seq: 2 }], []]);
  assert.throws(
    () => db.batch([{ sql: 'BEGIN' }, insert(3), insert(1), insert(4), { sql: 'COMMIT' }]),
    (err) => err instanceof PostgresError && err.code === '23505' && err.batchIndex === 2, 'the first failure is thrown, not the aborted ones after it',
  );
  assert.deepEqual(db.all('SELECT seq FROM events ORDER BY seq'), [{ seq: 1 }, { seq: 2 }]);
  assert.equal(db.get<{ fresh: boolean }>('SELECT now() = statement_timestamp() AS fresh')?.fresh, true, 'the COMMIT of the aborted transaction ended it');
  // Inside transaction() the same failure is undone by its ROLLBACK.
  assert.throws(() => db.transaction(() => db.batch([insert(5), insert(2)]))(), (err) => err instanceof PostgresError && err.batchIndex === 1);
  assert.deepEqual(db.all('SELECT seq FROM events ORDER BY seq'), [{ seq: 1 }, { seq: 2 }]);
});

test('a call past timeoutMs throws KW_ERR_STORE_UNAVAILABLE; the connection is closed from then on and says so', (t) => {
  const db = open(t, { timeoutMs: 300, connectTimeoutMs: 20_000 });
  assert.deepEqual(db.get('SELECT 1 AS one'), { one: 1 });
  const first = unavailable(() => db.get('SELECT pg_sleep(2)'));
  assert.ok(first.ms >= 250 && first.ms < 1500, `it waited ${first.ms} ms for a 300 ms limit`);
  assert.match(first.err.message, new RegExp(`PostgreSQL at 127\\.0\\.0\\.1:${cluster.port}/t\\d+ is unavailable: a statement got no answer within 300 ms; the connection was closed`));
  const next = unavailable(() => db.get('SELECT 1 AS one'));
  assert.ok(next.ms < 50, `the next call failed in ${next.ms} ms, without a round trip`);
  assert.match(next.err.message, /no answer within 300 ms/, 'it names why the connection was closed');
});

test('a server killed between calls: the next call throws KW_ERR_STORE_UNAVAILABLE at once, never hangs', { timeout: 60_000 }, async () => {
  const own = await startPostgres();
  try {
    const db = openSyncPg(own.url, { timeoutMs: 20_000, module: testSyncPgModule() });
    assert.deepEqual(db.get('SELECT 1 AS one'), { one: 1 });
    own.kill(); // the worker may or may not have seen the socket close before the next call: either way it fails fast
    const lost = unavailable(() => db.get('SELECT 1 AS one'));
    assert.ok(lost.ms < 2000, `it took ${lost.ms} ms (the limit is 20 s)`);
    assert.match(lost.err.message, new RegExp(`127\\.0\\.0\\.1:${own.port}/kowalski is unavailable`));
    unavailable(() => db.run('SELECT 1'));
    db.close();
  } finally {
    await own.stop();
  }
});

test('a backend terminated during a call: that call throws KW_ERR_STORE_UNAVAILABLE, long before its time limit', (t) => {
  const db = open(t, { timeoutMs: 20_000, applicationName: 'kw-victim' });
  const port = String(cluster.port);
  // This thread is blocked in the call, so another process ends the backend half a second into it.
  const killer = spawn('sh', ['-c', `sleep 0.5; "$0" -h 127.0.0.1 -p "$1" -U postgres -d postgres -qc "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'kw-victim'"`, path.join(postgresBin(), 'psql'), port], { stdio: 'ignore' });
  cleanups(t)(() => void killer.kill('SIGKILL'));
  const lost = unavailable(() => db.get('SELECT pg_sleep(15)'));
  assert.ok(lost.ms < 5000, `it took ${lost.ms} ms`);
  assert.match(lost.err.message, /terminating connection due to administrator command/);
});

test('the password never appears in a message, only host:port/database', async (t) => {
  const secret = 'sekret-Passw0rd';
  const port = await freePort(); // nothing listens there
  const refused = unavailable(() => openSyncPg(`postgres://postgres:${secret}@127.0.0.1:${port}/kowalski`, { timeoutMs: 10_000, module: testSyncPgModule() }));
  assert.match(refused.err.message, new RegExp(`^PostgreSQL at 127\\.0\\.0\\.1:${port}/kowalski is unavailable: .*ECONNREFUSED`));
  assert.ok(!refused.err.message.includes(secret) && !(refused.err.stack ?? '').includes(secret));

  const url = new URL(freshDatabase(cluster.url, `t${++databases}`));
  url.password = secret; // trust authentication takes any password
  const db = openSyncPg(url.href, { timeoutMs: 300, connectTimeoutMs: 20_000, module: testSyncPgModule() });
  cleanups(t)(() => db.close());
  const slow = unavailable(() => db.get('SELECT pg_sleep(2)'));
  assert.ok(!slow.err.message.includes(secret), slow.err.message);
});

test('close() ends the session, later calls say it was closed, and an open or closed SyncPg never keeps the process alive', { timeout: 60_000 }, async (t) => {
  const db = open(t, { applicationName: 'kw-closing' });
  const watcher = open(t);
  const sessions = () => watcher.get<{ n: number }>("SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = 'kw-closing'")?.n;
  assert.equal(sessions(), 1);
  db.close();
  db.close(); // idempotent
  assert.match(unavailable(() => db.get('SELECT 1')).err.message, /it was closed/);
  let left = sessions();
  for (let i = 0; i < 100 && left !== 0; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, 20)); // the server ends the backend after the client's goodbye
    left = sessions();
  }
  assert.equal(left, 0, 'the server saw the session end');

  for (const mode of ['close', 'leave-open']) {
    const script = [
      `import { openSyncPg } from ${JSON.stringify(path.join(REPO, 'engine/store/pg/sync-pg.ts'))};`,
      `const db = openSyncPg(${JSON.stringify(cluster.url)});`,
      "console.log(JSON.stringify(db.get('SELECT 41 + 1 AS n')));",
      mode === 'close' ? 'db.close();' : '',
    ].join('\n');
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
    cleanups(t)(() => void child.kill('SIGKILL'));
    let out = '';
    child.stdout.on('data', (d: Buffer) => void (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => void (out += d.toString()));
    const guard = setTimeout(() => child.kill('SIGKILL'), 20_000);
    const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
    clearTimeout(guard);
    assert.equal(signal, null, `${mode}: the child did not exit by itself within 20 s (${out})`);
    assert.equal(code, 0, `${mode}: ${out}`);
    assert.equal(out.trim(), '{"n":42}');
  }
});
