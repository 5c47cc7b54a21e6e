/**
 * The vault and the Rookery on a store shared by two nodes (issue 40): two engines, each
 * with its own data folder, on one Postgres database and one `[store] files` folder. A
 * note written on one node is read on the other, its audit listed there and reverted from
 * there; the same search gives the same notes on both after a write on either (each
 * node's index follows the shared audit); appends to one note from both nodes at once all
 * land, one after the other; a write a dead node left pending is settled by the next
 * writer of its note, and left alone while a live node holds it (a write waiting for it is
 * refused after 10 s); a Rookery draft made on one node is opened and edited on the other.
 * `kowalski serve` on a shared store without `[store] files` says what stays in its folder.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import type { Engine, WriteOrigin } from '../../engine/index.js';
import pg from 'pg';
import { KEY_LOCK_CLASS } from '../../engine/store/pg/run-store.js';
import { noteLockKey } from '../../engine/vault/note-locks.js';
import { cleanups } from '../../testkit/cleanup.js';
import { startCli } from '../../testkit/cli.js';
import { tempDir } from '../../testkit/tmp.js';
import { freshPostgresUrl, pgQuery, pgTestEngine } from '../support/pg-engine.js';
import { writeTestToken } from '../support/token.js';

const BY_CLI: WriteOrigin = { sessionId: null, agent: null, traceId: null, callKey: null, by: 'cli' };
const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

/** Two nodes on one fresh database and one shared files folder. */
/** `noteWaitMs`: node A's wait for a note another node writes (default the engine's, 10 s). */
async function twoNodes(t: TestContext, noteWaitMs?: number): Promise<{ a: Engine; b: Engine; url: string; files: string; homes: [string, string] }> {
  const dir = tempDir(t);
  const url = await freshPostgresUrl();
  const files = path.join(dir, 'shared');
  const [homeA, homeB] = [path.join(dir, 'a'), path.join(dir, 'b')];
  const a = (await pgTestEngine(t, { url, dataDir: homeA, store: { files }, ...(noteWaitMs === undefined ? {} : { noteWaitMs }) })).engine;
  const b = (await pgTestEngine(t, { url, dataDir: homeB, store: { files } })).engine;
  return { a, b, url, files, homes: [homeA, homeB] };
}

const hitsOf = async (engine: Engine, query: string): Promise<string[]> => (await engine.vault.search(query)).hits.map((h) => h.path).sort();

test('a note written on one node is read on the other, its audit listed there, and reverted from there', async (t) => {
  const { a, b, files, homes } = await twoNodes(t);
  const created = await a.vault.create('team/plan.md', '# Plan\n- alpha\n', BY_CLI);
  const appended = await a.vault.append('team/plan.md', '- beta\n', BY_CLI);
  assert.ok(fs.existsSync(path.join(files, 'vault', 'team', 'plan.md')), 'the note is in <files>/vault');
  for (const home of homes) assert.equal(fs.existsSync(path.join(home, 'vault', 'team', 'plan.md')), false, 'not in a data folder');

  assert.equal(b.vault.read('team/plan.md').content, '# Plan\n- alpha\n- beta\n');
  assert.deepEqual(b.vault.writes({}).map((w) => [w.writeId, w.op, w.state, w.path]), [
    [appended.writeId, 'append', 'done', 'team/plan.md'],
    [created.writeId, 'create', 'done', 'team/plan.md'],
  ]);
  assert.match((await b.vault.write(appended.writeId)).diff, /^\+- beta$/m, 'the write and its diff, on the other node');

  const revert = await b.vault.revert(appended.writeId, 'cli');
  assert.equal(revert.reverts, appended.writeId);
  assert.equal(a.vault.read('team/plan.md').content, '# Plan\n- alpha\n', 'the revert made on B is the note A reads');
  assert.deepEqual(a.vault.writes({ path: 'team/plan.md' }).map((w) => [w.writeId, w.op, w.revertedBy]), [
    [revert.writeId, 'revert', null],
    [appended.writeId, 'append', revert.writeId],
    [created.writeId, 'create', null],
  ]);
  await assert.rejects(a.vault.revert(appended.writeId, 'cli'), (err: { code?: string; message?: string }) =>
    err.code === 'KW_ERR_VAULT_NOT_REVERTIBLE' && err.message!.includes(`was reverted already, by write ${revert.writeId}`));
});

test('the same search on both nodes returns the same notes after a write on either', async (t) => {
  const { a, b } = await twoNodes(t);
  assert.deepEqual(await hitsOf(b, 'zebra'), [], 'nothing yet');
  await a.vault.create('animals/zebra.md', '# Zebra\nstriped zebra grazing\n', BY_CLI);
  assert.deepEqual(await hitsOf(b, 'zebra'), ['animals/zebra.md'], 'B finds what A wrote');
  assert.deepEqual(await hitsOf(a, 'zebra'), await hitsOf(b, 'zebra'));

  const appended = await b.vault.append('animals/zebra.md', 'a quokka visits\n', BY_CLI);
  await b.vault.create('animals/quokka.md', '# Quokka\nsmiling quokka\n', BY_CLI);
  assert.deepEqual(await hitsOf(a, 'quokka'), ['animals/quokka.md', 'animals/zebra.md'], 'A finds both of B\'s writes');
  assert.deepEqual(await hitsOf(b, 'quokka'), await hitsOf(a, 'quokka'));

  await a.vault.revert(appended.writeId, 'cli');
  assert.deepEqual(await hitsOf(b, 'quokka'), ['animals/quokka.md'], 'B no longer finds what A\'s revert took away');
  assert.deepEqual(await hitsOf(a, 'quokka'), ['animals/quokka.md']);
});

test('appends to one note from both nodes at once all land, one after the other, each audited', async (t) => {
  const { a, b } = await twoNodes(t);
  await a.vault.create('log.md', '# Log\n', BY_CLI);
  const lines = Array.from({ length: 12 }, (_, i) => `- ${i % 2 === 0 ? 'a' : 'b'}${i}\n`);
  await Promise.all(lines.map((line, i) => (i % 2 === 0 ? a : b).vault.append('log.md', line, BY_CLI)));
  const note = b.vault.read('log.md').content;
  assert.deepEqual(note.split('\n').filter((l) => l.startsWith('- ')).sort(), lines.map((l) => l.trim()).sort(), 'every line once');
  const writes = a.vault.writes({ path: 'log.md' }).reverse();
  assert.equal(writes.length, 13);
  assert.ok(writes.every((w) => w.state === 'done'));
  // Each write starts where the one before it ended: none was made on a note another changed under it.
  for (let i = 1; i < writes.length; i++) {
    assert.equal(writes[i]!.sha256Before, writes[i - 1]!.sha256After, `write ${writes[i]!.writeId} follows write ${writes[i - 1]!.writeId}`);
  }
  assert.equal(writes.at(-1)!.sha256After, sha(note));
});

test('a write a dead node left pending is settled by the next node to write that note', async (t) => {
  const { a, b, url, files } = await twoNodes(t);
  await a.vault.create('notes/n.md', 'one\n', BY_CLI);
  // What a node killed between a write's intent and its file leaves: the row pending, the note as before.
  const [left] = await pgQuery<{ write_id: number }>(url,
    `INSERT INTO note_writes (at, op, path, bytes_before, bytes_after, content, sha256_before, sha256_after, "by", state)
     VALUES (1, 'append', 'notes/n.md', 4, 8, 'two\n', $1, $2, 'cli', 'pending') RETURNING write_id::int`, [sha('one\n'), sha('one\ntwo\n')]);
  const next = await b.vault.append('notes/n.md', 'three\n', BY_CLI);
  assert.equal(fs.readFileSync(path.join(files, 'vault', 'notes', 'n.md'), 'utf8'), 'one\ntwo\nthree\n', 'the dead node\'s write completed first, then this one');
  assert.deepEqual(a.vault.writes({ path: 'notes/n.md' }).map((w) => [w.writeId, w.state]), [[next.writeId, 'done'], [left!.write_id, 'done'], [1, 'done']]);
  assert.equal(next.sha256Before, sha('one\ntwo\n'));
});

test('a note a live node holds is left to it: a write waits, then is refused with KW_ERR_VAULT_NOTE_BUSY; a node starting meanwhile leaves its pending write alone', async (t) => {
  const { a, url, files } = await twoNodes(t, 1500);
  await a.vault.create('held.md', 'one\n', BY_CLI);
  // A node stopped in the middle of a write: it holds the note (its session's lock), and its intent is pending.
  const holder = new pg.Client({ connectionString: url });
  await holder.connect();
  cleanups(t)(() => holder.end().catch(() => undefined));
  await holder.query('SELECT pg_advisory_lock($1, hashtext($2))', [KEY_LOCK_CLASS, noteLockKey('held.md')]);
  const [{ write_id: inFlight }] = (await holder.query<{ write_id: number }>(
    `INSERT INTO note_writes (at, op, path, bytes_before, bytes_after, content, sha256_before, sha256_after, "by", state)
     VALUES (1, 'append', 'held.md', 4, 8, 'two\n', $1, $2, 'cli', 'pending') RETURNING write_id::int`, [sha('one\n'), sha('one\ntwo\n')])).rows as [{ write_id: number }];
  const note = path.join(files, 'vault', 'held.md');

  const asked = Date.now();
  await assert.rejects(a.vault.append('held.md', 'three\n', BY_CLI), (err: { code?: string; message?: string }) =>
    err.code === 'KW_ERR_VAULT_NOTE_BUSY' && err.message!.includes('"held.md"') && err.message!.includes('for over 1.5 s'));
  assert.ok(Date.now() - asked >= 1500, 'it waited its time first');
  assert.equal(fs.readFileSync(note, 'utf8'), 'one\n', 'nothing was written');
  assert.deepEqual(a.vault.writes({ path: 'held.md' }).map((w) => [w.writeId, w.state]), [[inFlight, 'pending'], [1, 'done']], 'nothing was recorded');

  const c = (await pgTestEngine(t, { url, dataDir: path.join(path.dirname(files), 'c'), store: { files } })).engine;
  assert.equal(c.vault.writes({ path: 'held.md' })[0]!.state, 'pending', 'a node starting leaves a write under way alone');

  await holder.end(); // the holder dies: its lock goes with its connection
  const next = await c.vault.append('held.md', 'three\n', BY_CLI);
  assert.equal(fs.readFileSync(note, 'utf8'), 'one\ntwo\nthree\n', 'the dead node\'s write was completed first');
  assert.deepEqual(a.vault.writes({ path: 'held.md' }).map((w) => [w.writeId, w.state]), [[next.writeId, 'done'], [inFlight, 'done'], [1, 'done']]);
});

test('a Rookery draft made on one node is listed, opened and edited on the other', async (t) => {
  const { a, b } = await twoNodes(t);
  const draft = await a.rookery.create({ by: 'app' });
  assert.deepEqual(b.rookery.list().map((d) => d.id), [draft.id], 'B lists it');
  const edited = await b.rookery.edit(draft.id, (d) => ({ ...d, id: 'shared-horde', display_name: 'Shared', description: 'made on two nodes' }));
  assert.equal(edited.draft.display_name, 'Shared');
  const seen = await a.rookery.get(draft.id);
  assert.deepEqual([seen.draft.id, seen.draft.display_name, seen.draft.description], ['shared-horde', 'Shared', 'made on two nodes'], 'A opens B\'s edit');
  assert.throws(() => b.rookery.get('no-such-draft'), (err: { code?: string }) => err.code === 'KW_ERR_DRAFT_NOT_FOUND');
});

test('kowalski serve on a shared store without [store] files warns that its notes and run folders stay in its own data folder', async (t) => {
  const home = path.join(tempDir(t), 'home');
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(home, 'config.toml'), `[store]\nurl = ${JSON.stringify(await freshPostgresUrl())}\nlease_secs = 2\n`);
  writeTestToken(home);
  const server = startCli(home, ['serve', '--no-open', '--port', '0'], { limitMs: 120_000 });
  cleanups(t)(async () => {
    if (server.child.exitCode === null) server.child.kill('SIGTERM');
    await server.exited.catch(() => undefined);
  });
  const warning = await server.stderrLine(/^warning: the store is shared/);
  assert.ok(warning.includes(`the vault's notes (${path.join(home, 'vault')})`), warning);
  assert.match(warning, /Set \[store\] files to a folder every node reaches/);
});
