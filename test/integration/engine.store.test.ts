/** The SQLite store: migrations, pragmas, refusing damaged or newer files, one engine per directory. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import Database from 'better-sqlite3';
import type { KowalskiError } from '../../core/index.js';
import { createEngine, openDatabase } from '../../engine/index.js';
import { MIGRATIONS } from '../../engine/schema/index.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';
import { testOwnCode } from '../../testkit/dist.js';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return (err as KowalskiError).code;
  }
  return undefined;
}

test('migrating twice is harmless and the schema is recorded once per migration', (t) => {
  const file = path.join(tempDir(t), 'k.sqlite');
  openDatabase(file).close();
  const db = openDatabase(file);
  const rows = db.prepare('SELECT version, name FROM schema_migrations').all();
  assert.deepEqual(rows, [{ version: 1, name: 'init' }, { version: 2, name: 'traces' }, { version: 3, name: 'triggers' }, { version: 4, name: 'state_checks' }, { version: 5, name: 'chat' }, { version: 6, name: 'vault_writes' }, { version: 7, name: 'vault_index' }, { version: 8, name: 'chat_recall' }, { version: 9, name: 'rookery_drafts' }, { version: 10, name: 'review_approvals' }, { version: 11, name: 'adapters' }, { version: 12, name: 'plugins' }, { version: 13, name: 'step_sessions' }, { version: 14, name: 'step_sends' }, { version: 15, name: 'step_calls' }, { version: 16, name: 'queued_firings' }]);
  assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  assert.equal(db.pragma('synchronous', { simple: true }), 2, 'FULL by default');
  db.close();
  const normal = openDatabase(file, { synchronous: 'normal' });
  assert.equal(normal.pragma('synchronous', { simple: true }), 1);
  normal.close();
});

test('a database of the previous version gains the new tables and keeps its runs', (t) => {
  const file = path.join(tempDir(t), 'k.sqlite');
  const old = openDatabase(file, { migrations: MIGRATIONS.slice(0, 1) });
  old.prepare("INSERT INTO runs (id, horde_id, horde_hash, state, provenance, input, created_at, updated_at, last_seq) VALUES ('r1', 'h', 'x', 'succeeded', 'cli', '{}', 1, 1, 0)").run();
  old.close();
  const db = openDatabase(file);
  cleanups(t)(() => db.close());
  assert.deepEqual(db.prepare('SELECT version FROM schema_migrations').pluck().all(), [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]);
  assert.equal(db.prepare('SELECT count(*) FROM step_sessions').pluck().get(), 0);
  assert.equal(db.prepare('SELECT count(*) FROM step_sends').pluck().get(), 0);
  assert.equal(db.prepare('SELECT count(*) FROM step_calls').pluck().get(), 0);
  assert.equal(db.prepare('SELECT count(*) FROM traces').pluck().get(), 0);
  assert.equal(db.prepare('SELECT count(*) FROM rookery_drafts').pluck().get(), 0);
  assert.equal(db.prepare('SELECT count(*) FROM chat_sessions').pluck().get(), 0);
  assert.deepEqual(db.prepare("SELECT name FROM pragma_table_info('traces') WHERE name IN ('session_id', 'parent_id', 'agent') ORDER BY cid").pluck().all(), ['session_id', 'parent_id', 'agent']);
  assert.equal(db.prepare('SELECT count(*) FROM trigger_firings').pluck().get(), 0);
  assert.equal(db.prepare("SELECT state FROM runs WHERE id = 'r1'").pluck().get(), 'succeeded');
});

/** Every migration's tables, indexes and their SQL, as sqlite_master holds them. */
function schemaOf(db: Database.Database): unknown[] {
  return db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all();
}

/** Two processes open the same fresh file and migrate it at the same instant (released together by a file appearing). */
async function migrateTogether(t: TestContext, dir: string, file: string): Promise<{ migrations: unknown[]; schema: unknown[] }[]> {
  const go = path.join(dir, 'go');
  const script = `
    const fs = await import('node:fs');
    const { openDatabase } = await import(${JSON.stringify(new URL('../../engine/store/database.ts', import.meta.url).href)});
    process.stdout.write('ready\\n');
    const sleep = new Int32Array(new SharedArrayBuffer(4));
    while (!fs.existsSync(${JSON.stringify(go)})) Atomics.wait(sleep, 0, 0, 1);
    const db = openDatabase(${JSON.stringify(file)});
    const migrations = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all();
    const schema = db.prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").all();
    db.close();
    process.stdout.write(JSON.stringify({ migrations, schema }) + '\\n');
  `;
  const children = [0, 1].map(() => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    cleanups(t)(() => child.kill('SIGKILL'));
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', () => out.startsWith('ready\n') && resolve());
      child.once('exit', () => reject(new Error(`a migrating process exited before it was ready: ${err}`)));
    });
    const done = once(child, 'exit').then(([code]) => ({ code: code as number | null, out, err }));
    return { ready, done };
  });
  await Promise.all(children.map((c) => c.ready));
  fs.writeFileSync(go, '');
  const results = await Promise.all(children.map((c) => c.done));
  return results.map((r) => {
    assert.equal(r.err, '', 'no error, not even a warning: the later one waited for the first');
    assert.equal(r.code, 0);
    return JSON.parse(r.out.slice('ready\n'.length)) as { migrations: unknown[]; schema: unknown[] };
  });
}

test('two engines migrating the same fresh database at once both end with the whole schema, each migration applied once', async (t) => {
  const dir = tempDir(t);
  const alone = openDatabase(path.join(dir, 'alone.sqlite'));
  const expected = { migrations: MIGRATIONS.map((m) => ({ version: m.version, name: m.name })), schema: schemaOf(alone) };
  alone.close();
  for (let round = 0; round < 3; round++) {
    const roundDir = path.join(dir, `round-${round}`);
    fs.mkdirSync(roundDir);
    const file = path.join(roundDir, 'k.sqlite');
    const [a, b] = await migrateTogether(t, roundDir, file);
    assert.deepEqual(a, expected, `round ${round}: the first process sees the schema of a database migrated alone`);
    assert.deepEqual(b, expected, `round ${round}: so does the second`);
    const db = new Database(file);
    assert.deepEqual(db.prepare('SELECT version, count(*) AS n FROM schema_migrations GROUP BY version').all(), MIGRATIONS.map((m) => ({ version: m.version, n: 1 })));
    db.close();
  }
});

/** A database as kowalski 3-migrations builds left it: their SQL, their schema_migrations rows, a few rows of everything. */
function previousDatabase(file: string, runState = 'succeeded'): void {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
  for (const m of MIGRATIONS.slice(0, 3)) db.exec(m.sql);
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, 1000)');
  for (const [v, name] of [[1, 'init'], [2, 'traces'], [3, 'triggers']] as const) record.run(v, name);
  const run = db.prepare("INSERT INTO runs (id, horde_id, horde_hash, state, provenance, input, created_at, updated_at, finished_at, error_code, error, last_seq) VALUES (?, 'h', 'x', ?, 'cli', '{\"a\":\"1\"}', ?, ?, ?, ?, ?, 3)");
  run.run('r1', runState, 1, 2, 2, null, null);
  run.run('r2', 'awaiting_input', 3, 4, null, null, null);
  run.run('r3', 'failed', 5, 6, 6, 'KW_ERR_NO_ROUTE', 'no route');
  db.prepare("INSERT INTO events (run_id, seq, type, v, at, data) VALUES ('r1', 1, 'run.created', 1, 1, '{}')").run();
  db.prepare("INSERT INTO step_attempts (run_id, step, attempt, state, started_at, finished_at, duration_ms, summary, pgid, token) VALUES ('r1', 's', 1, 'passed', 1, 2, 1, 'ok', 42, 'tok'), ('r3', 's', 1, 'interrupted', 5, 6, NULL, NULL, NULL, NULL)").run();
  db.prepare("INSERT INTO approvals (run_id, seq, step, reason, command, hash, state, requested_at, decided_at, decided_by, deny_reason) VALUES ('r2', 2, 's', 'confirm_command', '{}', 'h', 'pending', 3, NULL, NULL, NULL), ('r1', 2, 's', 'outcome_unknown', '{}', 'h', 'denied', 1, 2, 'cli', 'no')").run();
  db.prepare("INSERT INTO trigger_state (horde_id, name, enabled, last_scheduled, next_fire_at, updated_at) VALUES ('h', 'daily', 1, 10, 20, 5)").run();
  db.prepare("INSERT INTO trigger_firings (horde_id, name, key, at, outcome, run_id, detail, input) VALUES ('h', 'daily', 'cron:a', 1, 'started', 'r1', NULL, NULL), ('h', 'daily', 'cron:b', 2, 'queued', NULL, 'held', '{}')").run();
  db.prepare("INSERT INTO watch_hashes (horde_id, name, path, hash) VALUES ('h', 'w', '/a', 'x')").run();
  db.close();
}

const TABLES = ['events', 'runs', 'step_attempts', 'approvals', 'trigger_state', 'trigger_firings', 'watch_hashes'];
function rowsOf(db: Database.Database): Record<string, unknown[]> {
  return Object.fromEntries(TABLES.map((table) => [table, db.prepare(`SELECT ${table === 'runs' ? 'rowid, ' : ''}* FROM ${table} ORDER BY 1, 2, 3`).all()]));
}

test('a database made by the previous build keeps every row and index through the CHECK migration, and then refuses a bad state', (t) => {
  const file = path.join(tempDir(t), 'k.sqlite');
  previousDatabase(file);
  const raw = new Database(file);
  const before = rowsOf(raw);
  const indexes = raw.prepare("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name").all();
  raw.close();

  const db = openDatabase(file);
  cleanups(t)(() => db.close());
  assert.deepEqual(db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all(), MIGRATIONS.map((m) => ({ version: m.version, name: m.name })));
  // Migration 10 gives approvals an `artifact` column (a review's file), empty on the rows it keeps.
  const kept = { ...before, approvals: before.approvals!.map((r) => ({ ...(r as object), artifact: null })) };
  assert.deepEqual(rowsOf(db), kept, 'every row, with its values (and the runs its rowids)');
  const after = db.prepare("SELECT name, tbl_name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name").all();
  assert.deepEqual(after.filter((i) => indexes.some((o) => JSON.stringify(o) === JSON.stringify(i))), indexes, 'every index kept');
  assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
  assert.equal(codeOf(() => db.prepare("UPDATE runs SET state = 'paused' WHERE id = 'r1'").run()), 'SQLITE_CONSTRAINT_CHECK');
  assert.equal(codeOf(() => db.prepare("UPDATE step_attempts SET state = 'done'").run()), 'SQLITE_CONSTRAINT_CHECK');
  assert.equal(codeOf(() => db.prepare("UPDATE approvals SET state = 'maybe'").run()), 'SQLITE_CONSTRAINT_CHECK');
  assert.equal(codeOf(() => db.prepare("UPDATE trigger_firings SET outcome = 'fired'").run()), 'SQLITE_CONSTRAINT_CHECK');
  assert.equal(db.prepare("SELECT state FROM runs WHERE id = 'r1'").pluck().get(), 'succeeded', 'a refused write changes nothing');
  // Opened again by the same build: nothing more to do.
  openDatabase(file).close();
});

test('a row the CHECK migration cannot keep stops the start with a coded error, and nothing is changed', (t) => {
  const file = path.join(tempDir(t), 'k.sqlite');
  previousDatabase(file, 'paused');
  assert.throws(() => openDatabase(file), (err: KowalskiError) => {
    assert.equal(err.code, 'KW_ERR_STORE_MIGRATION_FAILED');
    assert.match(err.message, /migration 004_state_checks cannot be applied to .*k\.sqlite: a row breaks it \(CHECK constraint failed: /);
    assert.match(err.message, /Nothing was changed/);
    return true;
  });
  const raw = new Database(file);
  cleanups(t)(() => raw.close());
  assert.deepEqual(raw.prepare('SELECT version FROM schema_migrations').pluck().all(), [1, 2, 3]);
  assert.equal(raw.prepare("SELECT state FROM runs WHERE id = 'r1'").pluck().get(), 'paused');
});

test('a database that recorded another migration under a number this build uses is refused, not migrated', (t) => {
  const file = path.join(tempDir(t), 'k.sqlite');
  previousDatabase(file);
  const renumbered = MIGRATIONS.map((m) => (m.version === 2 ? { ...m, name: 'model_traces' } : m));
  assert.throws(() => openDatabase(file, { migrations: renumbered }), (err: KowalskiError) => {
    assert.equal(err.code, 'KW_ERR_STORE_MIGRATIONS_INVALID');
    assert.match(err.message, /recorded migration 2 as "traces", but this kowalski's migration 2 is "model_traces"/);
    return true;
  });
  const raw = new Database(file);
  cleanups(t)(() => raw.close());
  assert.deepEqual(raw.prepare('SELECT version FROM schema_migrations').pluck().all(), [1, 2, 3]);
});

test('a database written by a newer kowalski is refused and left as it was', (t) => {
  const file = path.join(tempDir(t), 'k.sqlite');
  openDatabase(file).close();
  const raw = new Database(file);
  raw.prepare('INSERT INTO schema_migrations VALUES (99, ?, 0)').run('future');
  raw.close();
  const before = fs.readFileSync(file);
  assert.equal(codeOf(() => openDatabase(file)), 'KW_ERR_STORE_TOO_NEW');
  assert.deepEqual(fs.readFileSync(file), before);
});

test('a damaged database refuses to start, says what to do, and deletes nothing', async (t) => {
  const home = tempDir(t);
  const file = path.join(home, 'kowalski.sqlite');
  fs.writeFileSync(file, Buffer.concat([Buffer.from('SQLite format 3\0'), Buffer.alloc(4096, 0x5a)]));
  const before = fs.readFileSync(file);
  await assert.rejects(createEngine({ ownCode: testOwnCode(), dataDir: home }), (err: KowalskiError) => {
    assert.equal(err.code, 'KW_ERR_STORE_CORRUPT');
    assert.match(err.message, /Nothing was changed or deleted/);
    assert.match(err.message, /\.recover/);
    return true;
  });
  assert.deepEqual(fs.readFileSync(file), before);
  assert.deepEqual(fs.readdirSync(home).filter((f) => f.startsWith('kowalski.sqlite')), ['kowalski.sqlite']);
  // The lock was released: once the file is moved aside, an engine starts.
  fs.renameSync(file, path.join(home, 'damaged.sqlite'));
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  await engine.close();
});

test('a second engine on the same data directory is refused, in this process and in another', async (t) => {
  const home = tempDir(t);
  const first = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  await assert.rejects(createEngine({ ownCode: testOwnCode(), dataDir: home }), (err: KowalskiError) => err.code === 'KW_ERR_DATA_DIR_LOCKED' && err.message.includes(`process ${process.pid}`));
  await first.close();

  // Another process holds it; when that process is killed with SIGKILL, the lock goes with it.
  const holder = spawn(process.execPath, ['--import', 'tsx', '-e', `
    const { createEngine } = await import(${JSON.stringify(new URL('../../engine/index.ts', import.meta.url).href)});
    await createEngine({ dataDir: ${JSON.stringify(home)} });
    process.stdout.write('locked\\n');
    setInterval(() => {}, 1000);
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  cleanups(t)(() => holder.kill('SIGKILL'));
  const [chunk] = (await once(holder.stdout, 'data')) as [Buffer];
  assert.equal(chunk.toString().trim(), 'locked');
  await assert.rejects(createEngine({ ownCode: testOwnCode(), dataDir: home }), (err: KowalskiError) => err.code === 'KW_ERR_DATA_DIR_LOCKED' && err.message.includes(`process ${holder.pid}`));
  holder.kill('SIGKILL');
  await once(holder, 'exit');
  const after = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  await after.close();
});

test('the WAL is checkpointed in the background once it is long: committed pages reach the database file without a checkpoint in any commit', async (t) => {
  const home = tempDir(t);
  // A WAL started over past 64 pages: its thread starts past 16 (64 KiB).
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home, walPages: 64 });
  cleanups(t)(() => engine.close());
  const db = path.join(home, 'kowalski.sqlite');
  const before = fs.statSync(db).size;
  // Commits write to the WAL only (wal_autocheckpoint = 0); the main file grows once the checkpoint thread has run.
  const horde = (await engine.catalog()).entries.find((e) => e.id === 'retry-command');
  assert.ok(horde?.result.ok);
  if (!horde.result.ok) return;
  for (let i = 0; i < 30; i++) await engine.startRun(horde.result.horde, { command: 'true', cwd: home });
  const deadline = Date.now() + 15_000;
  while (fs.statSync(db).size <= before && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  assert.ok(fs.statSync(db).size > before, `the database file grew from ${before} bytes once checkpointed`);
  await engine.close(); // before the folder is removed: its runs' first steps may still be writing
});

test('a commit that fails stops the engine: waiting callers get the error, nothing more is written or run', async (t) => {
  const home = tempDir(t);
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  cleanups(t)(() => engine.close());
  const entry = (await engine.catalog()).entries.find((e) => e.id === 'retry-command');
  assert.ok(entry?.result.ok);
  if (!entry.result.ok) return;
  const horde = entry.result.horde;
  const marker = path.join(home, 'ran');
  const parked = await engine.startRun(horde, { command: `touch ${marker}`, cwd: home });
  assert.equal(await engine.waitForRun(parked), 'awaiting_input');
  // Someone else breaks the schema under the running engine.
  const other = new Database(path.join(home, 'kowalski.sqlite'));
  other.exec('DROP TABLE approvals');
  other.close();
  await assert.rejects(engine.approve(parked), (err: KowalskiError) => err.code === 'KW_ERR_INTERNAL' && /no such table: approvals/.test(err.message));
  await assert.rejects(engine.waitForRun(parked), (err: KowalskiError) => err.code === 'KW_ERR_INTERNAL');
  await assert.rejects(engine.startRun(horde, { command: 'true', cwd: home }), (err: KowalskiError) => /the engine stopped/.test(err.message));
  await engine.close();
  assert.equal(fs.existsSync(marker), false, 'the approved command never ran: its approval was not committed');
});
