/**
 * The vault's keyword search through a real engine on a real data directory: bm25 with
 * the title weighted, snippets with [ ] marks, queries that would be FTS5 syntax, the
 * folder filter; a note edited by hand while kowalski was stopped is found after the
 * next start (the rescan); a note edited while the server runs is found once the real
 * chokidar watch has indexed it (a bounded wait on `vault:indexed`, no sleeps).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createEngine } from '../../engine/index.js';
import { tempDir } from '../../testkit/tmp.js';
import { engineOn, indexed, writeNote } from '../support/vault.js';
import { testOwnCode } from '../../testkit/dist.js';

const paths = (answer: { hits: Array<{ path: string }> }): string[] => answer.hits.map((h) => h.path);

test('keyword search: every note found at start, the title weighs more than the body, snippets mark the words, FTS syntax in a query is only words', async (t) => {
  const home = tempDir(t, 'kw-vault-');
  writeNote(home, 'projects/acme.md', '# Acme invoices\n\nThe invoices of Acme are due on the first Monday.\n');
  writeNote(home, 'journal/2026-01-02.md', 'Talked about invoices, invoices and more invoices with the bank. Nothing on Acme.\n');
  writeNote(home, 'memory/people.md', '# People\n\nMarta runs the bakery on Elm Street.\n');
  writeNote(home, '.trash/old.md', '# Old invoices\n');
  writeNote(home, 'readme.txt', 'invoices in a text file are not notes');
  const engine = await engineOn(t, home);
  assert.equal(engine.vaultSearch.status().notes, 3, 'dot-folders and non-.md files are not notes');

  const answer = await engine.vaultSearch.search('invoices');
  assert.equal(answer.mode, 'keyword');
  assert.deepEqual(paths(answer), ['projects/acme.md', 'journal/2026-01-02.md'], 'the note with the word in its title ranks first, though the other says it three times');
  assert.equal(answer.hits[0]!.title, 'Acme invoices');
  assert.equal(answer.hits[1]!.title, '2026-01-02', 'no # heading: the file name');
  assert.match(answer.hits[1]!.snippet, /\[invoices\]/);
  assert.deepEqual(answer.hits[0]!.found, ['keyword']);
  assert.ok(answer.hits[0]!.score > answer.hits[1]!.score);

  // Every word must match when some note has them all; else any word.
  assert.deepEqual(paths(await engine.vaultSearch.search('acme monday')), ['projects/acme.md']);
  assert.deepEqual(paths(await engine.vaultSearch.search('bakery zeppelin')), ['memory/people.md']);
  // What would be FTS5 syntax (quotes, operators, columns, a stray paren) is searched as words, never an error.
  for (const q of ['"invoices', 'invoices AND (', 'title:acme', 'NEAR(acme monday)', '*', 'acme OR -', "l'invoices\u0000"]) {
    const a = await engine.vaultSearch.search(q);
    assert.equal(a.mode, 'keyword', q);
  }
  assert.deepEqual(paths(await engine.vaultSearch.search('title:acme')), ['projects/acme.md', 'journal/2026-01-02.md'], 'no note has "title": any word, the title match first');
  const empty = await engine.vaultSearch.search('?!');
  assert.deepEqual(empty.hits, []);
  assert.match(empty.note ?? '', /no words/);
  // Diacritics are folded.
  writeNote(home, 'memory/cafe.md', '# Café Zoë\n');
  engine.vaultSearch.noteChanged('memory/cafe.md');
  assert.deepEqual(paths(await engine.vaultSearch.search('cafe zoe')), ['memory/cafe.md']);

  // The folder filter.
  assert.deepEqual(paths(await engine.vaultSearch.search('invoices', { under: 'journal/' })), ['journal/2026-01-02.md']);
  assert.deepEqual(paths(await engine.vaultSearch.search('invoices', { under: 'journal' })), ['journal/2026-01-02.md']);
  assert.deepEqual(paths(await engine.vaultSearch.search('invoices', { under: 'jour' })), [], 'a folder, not a prefix of a name');
  await assert.rejects(engine.vaultSearch.search('invoices', { under: '../x' }), { code: 'KW_ERR_VAULT_PATH' });
  assert.equal((await engine.vaultSearch.search('invoices', { limit: 1 })).hits.length, 1);
});

test('a note edited by hand while kowalski was stopped is found at the next start; a deleted one is gone; an unchanged one is not read again', async (t) => {
  const home = tempDir(t, 'kw-vault-');
  writeNote(home, 'plans.md', '# Plans\n\nShip the gazebo in spring.\n');
  writeNote(home, 'gone.md', '# Gone\n\nThe zeppelin note.\n');
  writeNote(home, 'same.md', '# Same\n\nNothing changes here.\n');
  const first = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  assert.deepEqual(paths(await first.vaultSearch.search('gazebo')), ['plans.md']);
  await first.close();

  // Stopped: edit one by hand (same size would not hide it: the mtime moves too), delete one, touch one without changing it.
  writeNote(home, 'plans.md', '# Plans\n\nShip the pergola in autumn.\n');
  fs.rmSync(path.join(home, 'vault', 'gone.md'));
  const future = new Date(Date.now() + 60_000);
  fs.utimesSync(path.join(home, 'vault', 'same.md'), future, future);

  const second = await engineOn(t, home);
  assert.deepEqual(paths(await second.vaultSearch.search('pergola')), ['plans.md']);
  assert.deepEqual(paths(await second.vaultSearch.search('gazebo')), [], 'the old words are gone');
  assert.deepEqual(paths(await second.vaultSearch.search('zeppelin')), [], 'the deleted note is gone');
  assert.equal(second.vaultSearch.status().notes, 2);
  const seen: string[][] = [];
  second.on('vault:indexed', ({ paths: p }) => seen.push(p));
  const again = second.vaultSearch.rescan();
  assert.deepEqual({ indexed: again.indexed, removed: again.removed }, { indexed: 0, removed: 0 }, 'a touched but unchanged note is re-stamped, not re-indexed');
  assert.deepEqual(seen, []);
});

test('the watcher indexes a note edited, added or removed while the server runs; symlinks are not followed', async (t) => {
  const home = tempDir(t, 'kw-vault-');
  const outside = tempDir(t, 'kw-outside-');
  writeNote(home, 'todo.md', '# Todo\n\nBuy flour.\n');
  fs.writeFileSync(path.join(outside, 'secret.md'), '# Secret\n\nThe walrus password.\n');
  const engine = await engineOn(t, home);
  const started = await engine.vaultSearch.start();
  assert.deepEqual({ indexed: started.indexed, removed: started.removed }, { indexed: 0, removed: 0 }, 'the start found nothing new since the engine was created');
  assert.equal(engine.vaultSearch.status().watching, true);

  let next = indexed(engine, 'todo.md');
  fs.appendFileSync(path.join(home, 'vault', 'todo.md'), 'Call the plumber about the boiler.\n');
  await next;
  assert.deepEqual(paths(await engine.vaultSearch.search('plumber boiler')), ['todo.md']);

  next = indexed(engine, 'ideas/new.md');
  writeNote(home, 'ideas/new.md', '# New idea\n\nA kite that waters plants.\n');
  await next;
  assert.deepEqual(paths(await engine.vaultSearch.search('kite')), ['ideas/new.md']);

  next = indexed(engine, 'todo.md');
  fs.rmSync(path.join(home, 'vault', 'todo.md'));
  await next;
  assert.deepEqual(paths(await engine.vaultSearch.search('plumber')), []);

  // A symlinked note and a symlinked folder are not notes: never indexed, even when asked.
  fs.symlinkSync(path.join(outside, 'secret.md'), path.join(home, 'vault', 'link.md'));
  fs.symlinkSync(outside, path.join(home, 'vault', 'linked-dir'));
  next = indexed(engine, 'marker.md');
  writeNote(home, 'marker.md', '# Marker\n');
  await next;
  engine.vaultSearch.noteChanged('link.md');
  engine.vaultSearch.noteChanged('linked-dir/secret.md');
  engine.vaultSearch.rescan();
  assert.deepEqual(paths(await engine.vaultSearch.search('walrus')), []);
  assert.throws(() => engine.vaultSearch.noteChanged('../outside.md'), { code: 'KW_ERR_VAULT_PATH' });
  assert.throws(() => engine.vaultSearch.noteChanged('/etc/passwd.md'), { code: 'KW_ERR_VAULT_PATH' });
});
