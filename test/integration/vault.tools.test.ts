/**
 * The vault's five tools on a real vault folder and a real SQLite file, through the tool
 * registry (schema checks included): every rule a model meets — create fails when the
 * note exists, append when it does not, the newline append adds, paths that escape
 * (`..`, absolute, symlinks out or in the way, hidden), non-`.md` names, the size cap, a
 * write without a chat caller — and what list, read and search answer.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { test } from 'node:test';
import { createToolRegistry } from '../../agents/index.js';
import type { ToolCaller, ToolRegistry } from '../../agents/index.js';
import { openDatabase } from '../../engine/index.js';
import { createVault } from '../../engine/vault/index.js';
import { VAULT_TOOL_NAMES } from '../../engine/vault/vault-tools.js';
import type { Vault } from '../../engine/vault/index.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';

interface Setup { vault: Vault; tools: ToolRegistry; root: string; dir: string; rows: () => Array<Record<string, unknown>> }

function setup(t: TestContext, maxNoteBytes = 1024): Setup {
  const dir = tempDir(t, 'kw-vault-');
  const db = openDatabase(path.join(dir, 'kowalski.sqlite'));
  cleanups(t)(() => db.close());
  const root = path.join(dir, 'vault');
  const vault = createVault({ root, db, clock: { now: () => 1_000 }, crash: () => undefined, maxNoteBytes });
  return { vault, tools: createToolRegistry({ builtins: vault.tools() }), root, dir, rows: () => db.prepare('SELECT * FROM note_writes ORDER BY write_id').all() as Array<Record<string, unknown>> };
}

let calls = 0;
const caller = (): ToolCaller => ({ sessionId: 'c1', agent: 'scribe', traceId: 7, key: `c1:1:r:1:${calls++}` });
const signal = new AbortController().signal;

async function refused(s: Setup, name: string, args: Record<string, unknown>, code: string, message?: RegExp): Promise<void> {
  await assert.rejects(s.tools.call(name, args, signal, caller()), (err: any) => {
    assert.equal(err.code, code, err.message);
    if (message !== undefined) assert.match(err.message, message);
    return true;
  });
}

test('the five tools are the ones profiles may name without an engine running (kowalski agents)', (t) => {
  assert.deepEqual(setup(t).vault.tools().map((tool) => tool.spec.name), VAULT_TOOL_NAMES);
});

test('create_note makes a note (and its folders) and fails when it exists; append_note fails when it does not', async (t) => {
  const s = setup(t);
  const out = await s.tools.call('create_note', { path: 'projects/acme.md', content: '# Acme\nA client.' }, signal, caller());
  assert.match(out.content, /Created the note "projects\/acme\.md" \(16 bytes; write 1\)/);
  assert.equal(fs.readFileSync(path.join(s.root, 'projects', 'acme.md'), 'utf8'), '# Acme\nA client.');
  await refused(s, 'create_note', { path: 'projects/acme.md', content: 'again' }, 'KW_ERR_VAULT_EXISTS', /append_note adds to it/);
  assert.equal(fs.readFileSync(path.join(s.root, 'projects', 'acme.md'), 'utf8'), '# Acme\nA client.', 'the existing note is untouched');
  await refused(s, 'append_note', { path: 'projects/none.md', content: 'x' }, 'KW_ERR_VAULT_NOT_FOUND', /create_note makes a new one/);
  assert.equal(fs.existsSync(path.join(s.root, 'projects', 'none.md')), false);
  assert.equal(s.rows().length, 1, 'a refused write leaves no row');
});

test('append_note adds a newline first only when the note does not end with one', async (t) => {
  const s = setup(t);
  await s.tools.call('create_note', { path: 'log.md', content: 'one' }, signal, caller());
  const a = await s.tools.call('append_note', { path: 'log.md', content: 'two\n' }, signal, caller());
  assert.match(a.content, /Appended 5 bytes to "log\.md" \(now 8 bytes; write 2\)/);
  await s.tools.call('append_note', { path: 'log.md', content: 'three' }, signal, caller());
  assert.equal(fs.readFileSync(path.join(s.root, 'log.md'), 'utf8'), 'one\ntwo\nthree');
  // The audit records what was written, the added newline included.
  assert.deepEqual(s.rows().map((r) => [r.op, r.content, r.bytes_before, r.bytes_after]), [['create', 'one', 0, 3], ['append', '\ntwo\n', 3, 8], ['append', 'three', 8, 13]]);
  // An empty note gets no leading newline.
  fs.writeFileSync(path.join(s.root, 'empty.md'), '');
  await s.tools.call('append_note', { path: 'empty.md', content: 'first' }, signal, caller());
  assert.equal(fs.readFileSync(path.join(s.root, 'empty.md'), 'utf8'), 'first');
});

test('paths stay inside the vault: .., absolute, ~, backslashes, hidden names and non-.md are refused before anything is written', async (t) => {
  const s = setup(t);
  const outside = path.join(s.dir, 'outside.md');
  for (const [p, why] of [
    ['../outside.md', /"\.\." is refused/],
    ['notes/../../outside.md', /"\.\." is refused/],
    [outside, /absolute paths are refused/],
    ['/etc/passwd.md', /absolute paths are refused/],
    ['~/x.md', /"~" is not the home folder/],
    ['notes\\x.md', /separate folders with "\/"/],
    ['.obsidian/x.md', /hidden/],
    ['notes/.secret.md', /hidden/],
    ['notes/x.txt', /must end in "\.md"/],
    ['notes/', /name a note|must end in "\.md"/],
    ['a\u0000b.md', /control characters/],
  ] as const) {
    await refused(s, 'create_note', { path: p, content: 'x' }, 'KW_ERR_VAULT_PATH', why);
  }
  await refused(s, 'read_note', { path: '../kowalski.sqlite' }, 'KW_ERR_VAULT_PATH');
  await refused(s, 'create_note', { path: `${'a'.repeat(256)}.md`, content: 'x' }, 'KW_ERR_VAULT_PATH', /at most 255 bytes/);
  // Longer than the schema allows: the registry refuses it before the tool runs.
  await refused(s, 'create_note', { path: `${'a/'.repeat(300)}x.md`, content: 'x' }, 'KW_ERR_TOOL_ARGS');
  assert.equal(fs.existsSync(outside), false);
  assert.deepEqual(fs.readdirSync(s.root), []);
  assert.equal(s.rows().length, 0);
});

test('a symlink anywhere on the way is refused, whether it leads out of the vault or stays in it', async (t) => {
  const s = setup(t);
  const out = path.join(s.dir, 'elsewhere');
  fs.mkdirSync(out);
  fs.writeFileSync(path.join(out, 'secret.md'), 'secret');
  fs.symlinkSync(out, path.join(s.root, 'linked'));
  fs.symlinkSync(path.join(out, 'secret.md'), path.join(s.root, 'secret.md'));
  fs.mkdirSync(path.join(s.root, 'real'));
  fs.writeFileSync(path.join(s.root, 'real', 'in.md'), 'inside');
  fs.symlinkSync(path.join(s.root, 'real', 'in.md'), path.join(s.root, 'alias.md'));
  await refused(s, 'read_note', { path: 'linked/secret.md' }, 'KW_ERR_VAULT_PATH', /"linked" is a symlink/);
  await refused(s, 'read_note', { path: 'secret.md' }, 'KW_ERR_VAULT_PATH', /symlink/);
  await refused(s, 'append_note', { path: 'secret.md', content: 'pwned' }, 'KW_ERR_VAULT_PATH', /symlink/);
  await refused(s, 'create_note', { path: 'linked/new.md', content: 'pwned' }, 'KW_ERR_VAULT_PATH', /symlink/);
  await refused(s, 'read_note', { path: 'alias.md' }, 'KW_ERR_VAULT_PATH', /symlink/);
  assert.equal(fs.readFileSync(path.join(out, 'secret.md'), 'utf8'), 'secret');
  assert.deepEqual(fs.readdirSync(out), ['secret.md']);
  // Listing skips links too: only the real note is shown.
  assert.deepEqual(s.vault.list().map((n) => n.path), ['real/in.md']);
});

test('sizes are bounded: a create or an append past max_note_bytes is refused, and so is reading a note past it', async (t) => {
  const s = setup(t, 100);
  await refused(s, 'create_note', { path: 'big.md', content: 'x'.repeat(101) }, 'KW_ERR_VAULT_TOO_LARGE', /101 bytes, over the vault's limit of 100/);
  await s.tools.call('create_note', { path: 'n.md', content: 'x'.repeat(60) }, signal, caller());
  await refused(s, 'append_note', { path: 'n.md', content: 'y'.repeat(40) }, 'KW_ERR_VAULT_TOO_LARGE', /would be 101 bytes/);
  assert.equal(fs.statSync(path.join(s.root, 'n.md')).size, 60);
  fs.writeFileSync(path.join(s.root, 'human.md'), 'z'.repeat(500));
  await refused(s, 'read_note', { path: 'human.md' }, 'KW_ERR_VAULT_TOO_LARGE', /500 bytes/);
  assert.equal(s.rows().length, 1);
});

test('a write without a chat caller (a horde step) is refused with KW_ERR_VAULT_NO_CALLER; reads need none', async (t) => {
  const s = setup(t);
  await assert.rejects(s.tools.call('create_note', { path: 'a.md', content: 'x' }, signal), (err: any) => err.code === 'KW_ERR_VAULT_NO_CALLER' && /made by chat agents/.test(err.message));
  await assert.rejects(s.tools.call('append_note', { path: 'a.md', content: 'x' }, signal, { ...caller(), traceId: null }), { code: 'KW_ERR_VAULT_NO_CALLER' });
  assert.equal(fs.existsSync(path.join(s.root, 'a.md')), false);
  assert.match((await s.tools.call('list_notes', {}, signal)).content, /the vault holds no notes/);
});

test('list, read and search answer what the notes hold; front matter, wikilinks and tags are kept as plain text', async (t) => {
  const s = setup(t, 64 * 1024);
  const acme = '---\ntags = ["client"]\n---\n# Acme Corp\nSee [[people/jane]] #client. Invoice due in March.\n';
  fs.mkdirSync(path.join(s.root, 'projects'));
  fs.mkdirSync(path.join(s.root, 'people'));
  fs.writeFileSync(path.join(s.root, 'projects', 'acme.md'), acme);
  fs.writeFileSync(path.join(s.root, 'people', 'jane.md'), 'Jane works at Acme; invoice questions go to her.');
  fs.writeFileSync(path.join(s.root, 'people', 'notes.txt'), 'not a note');
  fs.writeFileSync(path.join(s.root, '.hidden.md'), 'hidden');

  const list = s.vault.list();
  assert.deepEqual(list.map((n) => [n.path, n.title, n.size_bytes]), [['people/jane.md', 'jane', 48], ['projects/acme.md', 'Acme Corp', Buffer.byteLength(acme)]]);
  assert.equal(list[1]!.preview, acme, 'the preview is the text as it is, front matter included');
  assert.ok(list[1]!.modified_at > 0);
  assert.deepEqual(s.vault.list('projects').map((n) => n.path), ['projects/acme.md']);
  assert.deepEqual(s.vault.list('nowhere'), []);
  assert.match((await s.tools.call('list_notes', { under: 'people' }, signal)).content, /1 note\(s\) in "people":\n- people\/jane\.md — jane \(48 bytes\)/);

  const read = await s.tools.call('read_note', { path: 'projects/acme.md' }, signal);
  assert.equal(read.content, acme);
  await refused(s, 'read_note', { path: 'projects/none.md' }, 'KW_ERR_VAULT_NOT_FOUND', /list_notes shows/);
  await refused(s, 'read_note', { path: 'projects' }, 'KW_ERR_VAULT_PATH');

  const found = await s.tools.call('search_notes', { query: 'invoice', limit: 5 }, signal);
  assert.match(found.content, /projects\/acme\.md — Acme Corp\n {2}.*\[Invoice\] due in March/);
  assert.match(found.content, /people\/jane\.md — jane\n {2}.*\[invoice\] questions/);
  assert.match(found.content, /plain scan/);
  assert.match((await s.tools.call('search_notes', { query: 'zebra' }, signal)).content, /No note matches "zebra"/);
});

test('search_notes asks the index when one is set', async (t) => {
  const s = setup(t);
  const asked: string[] = [];
  s.vault.setIndex({
    noteChanged: (p) => asked.push(`changed ${p}`),
    search: async (query, options) => {
      asked.push(`search ${query} ${options?.limit}`);
      return { query, mode: 'hybrid', hits: [{ path: 'a.md', title: 'A', snippet: 'the [answer]', score: 1, found: ['keyword', 'semantic'], heading: 'Intro' }] };
    },
  });
  await s.tools.call('create_note', { path: 'a.md', content: '# A' }, signal, caller());
  const out = await s.tools.call('search_notes', { query: 'answer', limit: 3 }, signal);
  assert.equal(out.content, '- a.md — A § Intro\n  the [answer]');
  assert.deepEqual(asked, ['changed a.md', 'search answer 3']);
});
