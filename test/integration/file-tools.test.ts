/** list_dir, read_file and write_file on real folders: what they do inside the tools folder, and every way out they refuse. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { Ajv } from 'ajv';
import { createFileTools } from '../../agents/index.js';
import type { FileToolOptions, Tool, ToolOutput } from '../../agents/index.js';
import type { KowalskiError } from '../../core/index.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';

const ctx = { signal: new AbortController().signal };

interface Fixture {
  base: string;
  root: string;
  dataDir: string;
  call(tool: 'list_dir' | 'read_file' | 'write_file', args: Record<string, unknown>): Promise<ToolOutput>;
}

/**
 * <base>/root is the tools folder, <base>/data the data directory; <base>/outside.txt and
 * <base>/root-evil/secret.txt are what an escape would reach.
 */
function fixture(t: TestContext, options: Partial<FileToolOptions> = {}): Fixture {
  const base = fs.realpathSync(tempDir(t, 'kw-files-'));
  const root = path.join(base, 'root');
  const dataDir = path.join(base, 'data');
  fs.mkdirSync(root);
  fs.mkdirSync(dataDir);
  fs.mkdirSync(path.join(base, 'root-evil'));
  fs.writeFileSync(path.join(base, 'root-evil', 'secret.txt'), 'evil twin');
  fs.writeFileSync(path.join(base, 'outside.txt'), 'outside');
  const tools = new Map(createFileTools({ root, dataDir, ...options }).map((tool: Tool) => [tool.spec.name, tool]));
  return { base, root, dataDir, call: (name, args) => tools.get(name)!.call(args, ctx) };
}

async function refused(p: Promise<unknown>, code: string, ...parts: string[]): Promise<void> {
  await assert.rejects(p, (err: KowalskiError) => {
    assert.equal(err.code, code, err.message);
    for (const part of parts) assert.ok(err.message.includes(part), `${JSON.stringify(err.message)} should name ${JSON.stringify(part)}`);
    return true;
  });
}

test('write_file creates folders and a file, list_dir shows type and size, read_file gives the text back', async (t) => {
  const f = fixture(t);
  const written = await f.call('write_file', { path: 'notes/day one/todo.md', content: 'héllo\nworld\n' });
  assert.equal(written.content, 'Wrote 13 bytes to "notes/day one/todo.md" (created).');
  assert.equal(fs.readFileSync(path.join(f.root, 'notes', 'day one', 'todo.md'), 'utf8'), 'héllo\nworld\n');

  fs.writeFileSync(path.join(f.root, 'b.csv'), 'x,y\n');
  const top = await f.call('list_dir', {});
  assert.equal(top.content, '"." holds 2 entries:\n- b.csv (file, 4 bytes)\n- notes/ (folder)');
  assert.match((await f.call('list_dir', { path: 'notes/day one' })).content, /^- todo\.md \(file, 13 bytes\)$/m);
  assert.equal((await f.call('read_file', { path: './notes/day one/todo.md' })).content, 'héllo\nworld\n');

  fs.chmodSync(path.join(f.root, 'b.csv'), 0o640);
  assert.equal((await f.call('write_file', { path: 'b.csv', content: '' })).content, 'Wrote 0 bytes to "b.csv" (replaced).');
  assert.equal(fs.statSync(path.join(f.root, 'b.csv')).mode & 0o777, 0o640, 'a replaced file keeps its permissions');
  assert.equal((await f.call('read_file', { path: 'b.csv' })).content, '("b.csv" is empty: 0 bytes)');
  assert.deepEqual(fs.readdirSync(f.root).sort(), ['b.csv', 'notes'], 'no temp file is left behind');

  // A name that merely starts with two dots is an ordinary name, not a step up.
  await f.call('write_file', { path: '..draft.md', content: 'd' });
  assert.equal((await f.call('read_file', { path: '..draft.md' })).content, 'd');
  fs.symlinkSync('..draft.md', path.join(f.root, 'draft-link'));
  assert.equal((await f.call('read_file', { path: 'draft-link' })).content, 'd');
});

test('".." anywhere, absolute paths and "~/" are refused by all three tools, naming the path as written', async (t) => {
  const f = fixture(t);
  fs.mkdirSync(path.join(f.root, 'a'));
  const escapes = ['..', '../x', 'a/../../x', 'a/../b.txt', '../root-evil/secret.txt', path.join(f.base, 'outside.txt'), path.join(f.root, 'inside.txt'), '/etc/passwd', '~/x'];
  for (const p of escapes) {
    await refused(f.call('list_dir', { path: p }), 'KW_ERR_FILE_OUTSIDE_ROOT', JSON.stringify(p));
    await refused(f.call('read_file', { path: p }), 'KW_ERR_FILE_OUTSIDE_ROOT', JSON.stringify(p));
    await refused(f.call('write_file', { path: p, content: 'pwned' }), 'KW_ERR_FILE_OUTSIDE_ROOT', JSON.stringify(p));
  }
  assert.equal(fs.readFileSync(path.join(f.base, 'outside.txt'), 'utf8'), 'outside');
  assert.deepEqual(fs.readdirSync(f.base).sort(), ['data', 'outside.txt', 'root', 'root-evil']);
  assert.deepEqual(fs.readdirSync(f.root), ['a']);
});

test('a NUL byte in a path is refused before anything touches the disk', async (t) => {
  const f = fixture(t);
  await refused(f.call('write_file', { path: 'ok.txt\0../../outside.txt', content: 'x' }), 'KW_ERR_TOOL_ARGS', 'NUL');
  await refused(f.call('read_file', { path: 'a\0' }), 'KW_ERR_TOOL_ARGS', 'NUL');
  assert.deepEqual(fs.readdirSync(f.root), []);
});

test('a symlink pointing out of the root is refused, to a file, to a folder, to nothing, and wherever it sits on the path', async (t) => {
  const f = fixture(t);
  fs.symlinkSync(path.join(f.base, 'outside.txt'), path.join(f.root, 'link.txt'));
  fs.symlinkSync(f.base, path.join(f.root, 'out'));
  fs.symlinkSync(path.join(f.base, 'ghost.txt'), path.join(f.root, 'ghost'));
  fs.symlinkSync(path.join(f.base, 'nodir'), path.join(f.root, 'ghostdir'));
  fs.mkdirSync(path.join(f.root, 'deep', 'er'), { recursive: true });
  fs.symlinkSync('../../../outside.txt', path.join(f.root, 'deep', 'er', 'rel'));

  await refused(f.call('read_file', { path: 'link.txt' }), 'KW_ERR_FILE_OUTSIDE_ROOT', '"link.txt"', 'symlink');
  await refused(f.call('read_file', { path: 'deep/er/rel' }), 'KW_ERR_FILE_OUTSIDE_ROOT', '"deep/er/rel"');
  await refused(f.call('list_dir', { path: 'out' }), 'KW_ERR_FILE_OUTSIDE_ROOT', '"out"');
  await refused(f.call('read_file', { path: 'out/outside.txt' }), 'KW_ERR_FILE_OUTSIDE_ROOT', '"out/outside.txt"');
  await refused(f.call('write_file', { path: 'out/new.txt', content: 'x' }), 'KW_ERR_FILE_OUTSIDE_ROOT', '"out/new.txt"');
  await refused(f.call('write_file', { path: 'ghostdir/sub/new.txt', content: 'x' }), 'KW_ERR_FILE_OUTSIDE_ROOT', 'does not exist');
  await refused(f.call('write_file', { path: 'ghost', content: 'x' }), 'KW_ERR_FILE_OUTSIDE_ROOT', 'symlink');
  assert.deepEqual(fs.readdirSync(f.base).sort(), ['data', 'outside.txt', 'root', 'root-evil'], 'nothing was created outside the root');
  assert.equal(fs.readFileSync(path.join(f.base, 'outside.txt'), 'utf8'), 'outside');
});

test('a symlink to a sibling folder sharing the root\'s prefix (root-evil next to root) is outside', async (t) => {
  const f = fixture(t);
  fs.symlinkSync(path.join(f.base, 'root-evil'), path.join(f.root, 'twin'));
  await refused(f.call('read_file', { path: 'twin/secret.txt' }), 'KW_ERR_FILE_OUTSIDE_ROOT', 'leading out of the tools folder');
  await refused(f.call('list_dir', { path: 'twin' }), 'KW_ERR_FILE_OUTSIDE_ROOT');
});

test('symlinks that stay inside the root are followed for reading, but write_file never writes through one', async (t) => {
  const f = fixture(t);
  fs.mkdirSync(path.join(f.root, 'real'));
  fs.writeFileSync(path.join(f.root, 'real', 'inner.txt'), 'inner');
  fs.symlinkSync('real', path.join(f.root, 'alias'));
  fs.symlinkSync('real/inner.txt', path.join(f.root, 'inner-link'));
  assert.equal((await f.call('read_file', { path: 'alias/inner.txt' })).content, 'inner');
  assert.equal((await f.call('read_file', { path: 'inner-link' })).content, 'inner');
  assert.match((await f.call('list_dir', {})).content, /^- inner-link \(symlink\)$/m);
  await refused(f.call('write_file', { path: 'inner-link', content: 'changed' }), 'KW_ERR_FILE_OUTSIDE_ROOT', '"inner-link"', 'never writes through');
  assert.equal(fs.readFileSync(path.join(f.root, 'real', 'inner.txt'), 'utf8'), 'inner');
  assert.ok(fs.lstatSync(path.join(f.root, 'inner-link')).isSymbolicLink());
  await f.call('write_file', { path: 'alias/new.txt', content: 'via a folder link inside' });
  assert.equal(fs.readFileSync(path.join(f.root, 'real', 'new.txt'), 'utf8'), 'via a folder link inside');
});

test('the data directory is refused even inside the root: config.toml, the database, links to it, and a root inside it', async (t) => {
  const base = fs.realpathSync(tempDir(t, 'kw-files-'));
  const root = path.join(base, 'root');
  const dataDir = path.join(root, '.kowalski');
  fs.mkdirSync(dataDir, { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'config.toml'), '[providers.anthropic]\napi_key = "sk-secret"\n');
  fs.writeFileSync(path.join(dataDir, 'kowalski.sqlite'), 'db');
  fs.symlinkSync(path.join(dataDir, 'config.toml'), path.join(root, 'cfg'));
  // The data directory named through a link: the check compares real paths.
  fs.symlinkSync(dataDir, path.join(base, 'data-link'));
  const [list, read, write] = createFileTools({ root, dataDir: path.join(base, 'data-link') }) as [Tool, Tool, Tool];

  await refused(read.call({ path: '.kowalski/config.toml' }, ctx), 'KW_ERR_FILE_OUTSIDE_ROOT', '".kowalski/config.toml"', 'data folder');
  await refused(read.call({ path: '.kowalski/kowalski.sqlite' }, ctx), 'KW_ERR_FILE_OUTSIDE_ROOT');
  await refused(read.call({ path: 'cfg' }, ctx), 'KW_ERR_FILE_OUTSIDE_ROOT', '"cfg"');
  await refused(list.call({ path: '.kowalski' }, ctx), 'KW_ERR_FILE_OUTSIDE_ROOT');
  await refused(write.call({ path: '.kowalski/config.toml', content: 'x' }, ctx), 'KW_ERR_FILE_OUTSIDE_ROOT');
  await refused(write.call({ path: '.kowalski/hordes/evil/horde.md', content: 'x' }, ctx), 'KW_ERR_FILE_OUTSIDE_ROOT');
  assert.match(fs.readFileSync(path.join(dataDir, 'config.toml'), 'utf8'), /sk-secret/);
  assert.deepEqual(fs.readdirSync(dataDir).sort(), ['config.toml', 'kowalski.sqlite']);
  // The rest of the root stays usable.
  await write.call({ path: 'fine.txt', content: 'ok' }, ctx);

  const [, readInData] = createFileTools({ root: path.join(dataDir), dataDir }) as [Tool, Tool, Tool];
  await refused(readInData.call({ path: 'config.toml' }, ctx), 'KW_ERR_FILE_OUTSIDE_ROOT', 'data folder');
});

test('read_file returns at most 256 KiB with a note saying how to read on, never splits a character, and refuses binary files', async (t) => {
  const f = fixture(t);
  const text = 'abcdefghij\n'.repeat(30_000); // 330 000 bytes
  fs.writeFileSync(path.join(f.root, 'big.txt'), text);
  const first = await f.call('read_file', { path: 'big.txt' });
  assert.ok(first.content.startsWith(text.slice(0, 262_144)));
  assert.match(first.content, /\[truncated: bytes 0–262144 of 330000 shown; call read_file with path "big\.txt" and offset 262144 to read on\]$/);
  assert.equal(first.meta?.truncated, true);
  const rest = await f.call('read_file', { path: 'big.txt', offset: 262_144 });
  assert.equal(rest.content, `${text.slice(262_144)}\n\n[bytes 262144–330000 of 330000: end of file]`);

  fs.writeFileSync(path.join(f.root, 'accents.txt'), 'ééé');
  const part = await f.call('read_file', { path: 'accents.txt', max_bytes: 3 });
  assert.equal(part.content, 'é\n\n[truncated: bytes 0–2 of 6 shown; call read_file with path "accents.txt" and offset 2 to read on]');

  fs.writeFileSync(path.join(f.root, 'image.png'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0x00]));
  await refused(f.call('read_file', { path: 'image.png' }), 'KW_ERR_TOOL_FAILED', '"image.png"', 'binary');
});

test('write_file refuses content over 1 MiB and writes nothing', async (t) => {
  const f = fixture(t);
  await refused(f.call('write_file', { path: 'huge.txt', content: 'x'.repeat(1024 * 1024 + 1) }), 'KW_ERR_FILE_TOO_LARGE', '"huge.txt"', '1048577 bytes');
  assert.deepEqual(fs.readdirSync(f.root), []);
  assert.equal((await f.call('write_file', { path: 'max.txt', content: 'x'.repeat(1024 * 1024) })).meta?.bytes, 1024 * 1024);
});

test('missing paths, a folder given to read_file and a file given to list_dir say which tool to use instead', async (t) => {
  const f = fixture(t);
  fs.mkdirSync(path.join(f.root, 'docs'));
  fs.writeFileSync(path.join(f.root, 'docs', 'a.txt'), 'a');
  await refused(f.call('read_file', { path: 'docs/nope.md' }), 'KW_ERR_FILE_NOT_FOUND', '"docs/nope.md"', 'list_dir "docs"');
  await refused(f.call('list_dir', { path: 'gone' }), 'KW_ERR_FILE_NOT_FOUND', '"gone"');
  await refused(f.call('read_file', { path: 'docs/a.txt/b' }), 'KW_ERR_FILE_NOT_FOUND', 'is a file, not a folder');
  await refused(f.call('read_file', { path: 'docs' }), 'KW_ERR_TOOL_FAILED', 'list_dir');
  await refused(f.call('list_dir', { path: 'docs/a.txt' }), 'KW_ERR_TOOL_FAILED', 'read_file');
  await refused(f.call('write_file', { path: 'docs', content: 'x' }), 'KW_ERR_TOOL_FAILED', 'a folder');
});

test('list_dir shows the first 500 entries by name and says how many it left out', async (t) => {
  const f = fixture(t);
  for (let i = 0; i < 600; i++) fs.writeFileSync(path.join(f.root, `f${String(i).padStart(3, '0')}.txt`), '');
  const out = await f.call('list_dir', { path: '.' });
  const lines = out.content.split('\n');
  assert.equal(lines[0], '"." holds 600 entries:');
  assert.equal(lines.filter((l) => l.startsWith('- ')).length, 500);
  assert.equal(lines[500], '- f499.txt (file, 0 bytes)');
  assert.match(out.content, /\(100 more entries not shown/);
});

test('with no root chosen every tool fails with KW_ERR_FILE_ROOT_UNSET saying where to choose one', async (t) => {
  const dataDir = tempDir(t);
  for (const tool of createFileTools({ root: null, dataDir })) {
    await refused(tool.call({ path: 'a.txt', content: 'x' }, ctx), 'KW_ERR_FILE_ROOT_UNSET', 'choose a tools folder in Setup ([tools] root in config.toml)');
  }
});

test('a "~/" root is the home folder\'s; it is created by the first write, not before', async (t) => {
  const home = fs.realpathSync(tempDir(t, 'kw-home-'));
  const saved = process.env.HOME;
  process.env.HOME = home;
  cleanups(t)(() => {
    process.env.HOME = saved;
  });
  const [list, read, write] = createFileTools({ root: '~/kowalski-files', dataDir: path.join(home, '.local', 'share', 'kowalski') }) as [Tool, Tool, Tool];
  await refused(list.call({}, ctx), 'KW_ERR_FILE_NOT_FOUND', 'write_file creates');
  assert.equal(fs.existsSync(path.join(home, 'kowalski-files')), false);
  await write.call({ path: 'first.md', content: '# hi' }, ctx);
  assert.equal(fs.readFileSync(path.join(home, 'kowalski-files', 'first.md'), 'utf8'), '# hi');
  assert.equal((await read.call({ path: 'first.md' }, ctx)).content, '# hi');
  assert.match((await list.call({}, ctx)).content, /- first\.md \(file, 4 bytes\)/);
  await refused(read.call({ path: '../.bashrc' }, ctx), 'KW_ERR_FILE_OUTSIDE_ROOT');
});

test('a cancelled call writes nothing', async (t) => {
  const f = fixture(t);
  const [, , write] = createFileTools({ root: f.root, dataDir: f.dataDir }) as [Tool, Tool, Tool];
  const aborted = AbortSignal.abort(new Error('run cancelled'));
  await assert.rejects(write.call({ path: 'sub/x.txt', content: 'x' }, { signal: aborted }), /run cancelled/);
  assert.deepEqual(fs.readdirSync(f.root), []);
});

test('the schemas compile and hold the model to them: path required, offset ≥ 0, max_bytes within the limit, nothing extra', () => {
  const ajv = new Ajv({ strict: false });
  const specs = new Map(createFileTools({ root: null, dataDir: '/tmp' }).map((tool) => [tool.spec.name, ajv.compile(tool.spec.inputSchema)]));
  assert.deepEqual([...specs.keys()], ['list_dir', 'read_file', 'write_file']);
  assert.equal(specs.get('list_dir')!({}), true);
  assert.equal(specs.get('read_file')!({ path: 'a', offset: 10, max_bytes: 262_144 }), true);
  assert.equal(specs.get('read_file')!({ path: 'a', max_bytes: 262_145 }), false);
  assert.equal(specs.get('read_file')!({ path: 'a', offset: -1 }), false);
  assert.equal(specs.get('read_file')!({}), false);
  assert.equal(specs.get('write_file')!({ path: 'a' }), false);
  assert.equal(specs.get('write_file')!({ path: 'a', content: 'b', mode: 'append' }), false);
});
