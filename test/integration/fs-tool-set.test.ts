/** 1.x `fs_tool` (createFsToolSet) on real folders: its six tools with 1.x's argument names, confined to the root it is given. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { FS_TOOL_NAMES, createFsToolSet } from '../../agents/index.js';
import type { Tool } from '../../agents/index.js';
import type { KowalskiError } from '../../core/index.js';
import { tempDir } from '../../testkit/tmp.js';

const ctx = { signal: new AbortController().signal };

function tools(root: string, dataDir?: string): Map<string, Tool> {
  return new Map(createFsToolSet({ root, rootName: 'project folder', ...(dataDir === undefined ? {} : { dataDir }) }).map((t) => [t.spec.name, t]));
}

test('the set is list_dir, read_file, get_file, write_file, mkdir, get_file_first_lines, each named for the project folder', (t) => {
  const set = tools(tempDir(t));
  assert.deepEqual([...set.keys()], FS_TOOL_NAMES);
  for (const tool of set.values()) assert.match(tool.spec.description, /project folder/);
});

test('mkdir, write_file, get_file, get_file_first_lines (num_lines, default 10), list_dir (max_entries) do what 1.x did', async (t) => {
  const root = fs.realpathSync(tempDir(t));
  const set = tools(root);
  const call = (name: string, args: Record<string, unknown>) => set.get(name)!.call(args, ctx);
  assert.match((await call('mkdir', { path: 'src/util' })).content, /Created the folder "src\/util"/);
  assert.match((await call('mkdir', { path: 'src/util' })).content, /Found the folder/);
  const lines = Array.from({ length: 15 }, (_, i) => `line ${i + 1}`).join('\n');
  await call('write_file', { path: 'src/util/a.txt', content: lines });
  assert.equal((await call('get_file', { path: 'src/util/a.txt' })).content, lines);
  assert.equal((await call('get_file_first_lines', { path: 'src/util/a.txt', num_lines: 2 })).content, 'line 1\nline 2');
  assert.equal((await call('get_file_first_lines', { path: 'src/util/a.txt' })).content.split('\n').length, 10);
  await call('write_file', { path: 'src/b.txt', content: 'b' });
  const listed = (await call('list_dir', { path: 'src', max_entries: 1 })).content;
  assert.match(listed, /^"src" holds 2 entries:\n- b\.txt \(file, 1 bytes\)\n\(1 more entries not shown/);
  // 1.x took absolute paths inside the project.
  assert.equal((await call('read_file', { path: path.join(root, 'src', 'b.txt') })).content, 'b');
  await assert.rejects(call('mkdir', { path: 'src/b.txt' }), (err: KowalskiError) => err.code === 'KW_ERR_TOOL_FAILED');
});

test('confined: .., an absolute path outside, a symlink out and the data folder are refused, naming the project folder', async (t) => {
  const base = fs.realpathSync(tempDir(t));
  const root = path.join(base, 'proj');
  const data = path.join(root, '.kowalski');
  fs.mkdirSync(data, { recursive: true });
  fs.symlinkSync(base, path.join(root, 'up'));
  const set = tools(root, data);
  for (const [name, p] of [['write_file', '../x'], ['mkdir', path.join(base, 'x')], ['write_file', 'up/x'], ['get_file_first_lines', '.kowalski/config.toml']] as const) {
    await assert.rejects(set.get(name)!.call({ path: p, content: 'x' }, ctx), (err: KowalskiError) => {
      assert.equal(err.code, 'KW_ERR_FILE_OUTSIDE_ROOT', `${name} ${p}: ${err.message}`);
      return true;
    });
  }
  assert.deepEqual(fs.readdirSync(base).sort(), ['proj']);
});

test('a project folder that does not exist is never created by a write: KW_ERR_FILE_NOT_FOUND naming it', async (t) => {
  const gone = path.join(fs.realpathSync(tempDir(t)), 'no-project');
  const set = tools(gone);
  for (const name of ['write_file', 'mkdir', 'list_dir']) {
    await assert.rejects(set.get(name)!.call({ path: 'a.txt', content: 'x' }, ctx), (err: KowalskiError) => {
      assert.equal(err.code, 'KW_ERR_FILE_NOT_FOUND');
      return err.message.includes('project folder') && err.message.includes(gone);
    });
  }
  assert.equal(fs.existsSync(gone), false);
});
