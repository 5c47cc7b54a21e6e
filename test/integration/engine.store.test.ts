/** The SQLite store: migrations, pragmas, refusing damaged or newer files, one engine per directory. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { once } from 'node:events';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import type { KowalskiError } from '../../core/index.js';
import { createEngine, openDatabase } from '../../engine/index.js';
import { MIGRATIONS } from '../../engine/schema/index.js';
import { tempDir } from '../support/tmp.js';

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
  assert.deepEqual(rows, [{ version: 1, name: 'init' }, { version: 2, name: 'traces' }, { version: 3, name: 'triggers' }]);
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
  t.after(() => db.close());
  assert.deepEqual(db.prepare('SELECT version FROM schema_migrations').pluck().all(), [1, 2, 3]);
  assert.equal(db.prepare('SELECT count(*) FROM traces').pluck().get(), 0);
  assert.equal(db.prepare('SELECT count(*) FROM trigger_firings').pluck().get(), 0);
  assert.equal(db.prepare("SELECT state FROM runs WHERE id = 'r1'").pluck().get(), 'succeeded');
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
  await assert.rejects(createEngine({ dataDir: home }), (err: KowalskiError) => {
    assert.equal(err.code, 'KW_ERR_STORE_CORRUPT');
    assert.match(err.message, /Nothing was changed or deleted/);
    assert.match(err.message, /\.recover/);
    return true;
  });
  assert.deepEqual(fs.readFileSync(file), before);
  assert.deepEqual(fs.readdirSync(home).filter((f) => f.startsWith('kowalski.sqlite')), ['kowalski.sqlite']);
  // The lock was released: once the file is moved aside, an engine starts.
  fs.renameSync(file, path.join(home, 'damaged.sqlite'));
  const engine = await createEngine({ dataDir: home });
  await engine.close();
});

test('a second engine on the same data directory is refused, in this process and in another', async (t) => {
  const home = tempDir(t);
  const first = await createEngine({ dataDir: home });
  await assert.rejects(createEngine({ dataDir: home }), (err: KowalskiError) => err.code === 'KW_ERR_DATA_DIR_LOCKED' && err.message.includes(`process ${process.pid}`));
  await first.close();

  // Another process holds it; when that process is killed with SIGKILL, the lock goes with it.
  const holder = spawn(process.execPath, ['--import', 'tsx', '-e', `
    const { createEngine } = await import(${JSON.stringify(new URL('../../engine/index.ts', import.meta.url).href)});
    await createEngine({ dataDir: ${JSON.stringify(home)} });
    process.stdout.write('locked\\n');
    setInterval(() => {}, 1000);
  `], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.after(() => holder.kill('SIGKILL'));
  const [chunk] = (await once(holder.stdout, 'data')) as [Buffer];
  assert.equal(chunk.toString().trim(), 'locked');
  await assert.rejects(createEngine({ dataDir: home }), (err: KowalskiError) => err.code === 'KW_ERR_DATA_DIR_LOCKED' && err.message.includes(`process ${holder.pid}`));
  holder.kill('SIGKILL');
  await once(holder, 'exit');
  const after = await createEngine({ dataDir: home });
  await after.close();
});

test('the WAL is checkpointed in the background: committed pages reach the database file without a checkpoint in any commit', async (t) => {
  const home = tempDir(t);
  const engine = await createEngine({ dataDir: home });
  t.after(() => engine.close());
  const db = path.join(home, 'kowalski.sqlite');
  const before = fs.statSync(db).size;
  // Commits write to the WAL only (wal_autocheckpoint = 0); the main file grows once the checkpointer has run.
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
  const engine = await createEngine({ dataDir: home });
  t.after(() => engine.close());
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
