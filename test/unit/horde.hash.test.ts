import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { hashFolder, loadHorde } from '../../engine/horde/index.js';
import { baseFiles, copyFixture, expectError, expectOk, writeFiles, writeHorde } from '../fixtures/hordes/temp-horde.js';
import { cleanups } from '../../testkit/cleanup.js';

async function hashOf(dir: string): Promise<string> {
  const r = await hashFolder(dir);
  assert.ok(r.ok, r.ok ? '' : r.message);
  return r.hash;
}

void test('the hash is sha256 over sorted paths, each with its length and bytes', async (t) => {
  const h = writeHorde({ 'b.md': 'bee', 'a/x.md': 'ex' });
  cleanups(t)(h.cleanup);
  const expected = createHash('sha256')
    .update('a/x.md\u00002\u0000ex')
    .update('b.md\u00003\u0000bee')
    .digest('hex');
  assert.equal(await hashOf(h.dir), expected);
});

void test('the same content in another place hashes the same; any change of bytes or names changes it', async (t) => {
  const one = copyFixture('legacy-1x');
  const two = copyFixture('legacy-1x', 'elsewhere');
  cleanups(t)(one.cleanup);
  cleanups(t)(two.cleanup);
  const base = await hashOf(one.dir);
  assert.equal(await hashOf(two.dir), base);
  assert.equal(expectOk(await loadHorde(one.dir)).horde.hash, base);

  fs.appendFileSync(path.join(two.dir, 'prompts', 'dev.md'), ' ');
  const edited = await hashOf(two.dir);
  assert.notEqual(edited, base);

  fs.renameSync(path.join(two.dir, 'templates', 'style.md'), path.join(two.dir, 'templates', 'style2.md'));
  assert.notEqual(await hashOf(two.dir), edited);
});

void test('moving bytes from one file to the next changes the hash (the length is part of it)', async (t) => {
  const a = writeHorde({ a: 'xb', b: 'y' });
  const b = writeHorde({ a: 'x', b: 'by' });
  cleanups(t)(a.cleanup);
  cleanups(t)(b.cleanup);
  assert.notEqual(await hashOf(a.dir), await hashOf(b.dir));
});

void test('.git/ is skipped; other hidden files count', async (t) => {
  const h = writeHorde(baseFiles());
  cleanups(t)(h.cleanup);
  const before = await hashOf(h.dir);
  writeFiles(h.dir, { '.git/HEAD': 'ref: refs/heads/main\n', '.git/objects/ab/cd': 'x' });
  assert.equal(await hashOf(h.dir), before);
  writeFiles(h.dir, { '.notes': 'x' });
  assert.notEqual(await hashOf(h.dir), before);
});

void test('a link is hashed as its target text, never followed', async (t) => {
  const h = writeHorde({ 'a.md': 'x' });
  cleanups(t)(h.cleanup);
  fs.writeFileSync(path.join(h.root, 'outside.md'), 'one');
  fs.symlinkSync(path.join(h.root, 'outside.md'), path.join(h.dir, 'link.md'));
  const first = await hashOf(h.dir);
  fs.writeFileSync(path.join(h.root, 'outside.md'), 'two, longer');
  assert.equal(await hashOf(h.dir), first);
});

void test('a folder past the file or byte bound is an error, and loadHorde reports it', async (t) => {
  const h = writeHorde(baseFiles());
  cleanups(t)(h.cleanup);
  const files = await hashFolder(h.dir, { maxEntries: 3, maxBytes: 1_000_000 });
  assert.ok(!files.ok && /more than 3 files and folders/.test(files.message));
  const bytes = await hashFolder(h.dir, { maxEntries: 100, maxBytes: 50 });
  assert.ok(!bytes.ok && /more than 50 bytes/.test(bytes.message));

  fs.writeFileSync(path.join(h.dir, 'big.bin'), Buffer.alloc(21 * 1024 * 1024));
  expectError(await loadHorde(h.dir), { code: 'KW_ERR_HORDE_TOO_LARGE', file: '.' });
});
