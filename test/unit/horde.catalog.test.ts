import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { KowalskiError } from '../../core/index.js';
import { listHordes, requireHorde, resolveHordeRef } from '../../engine/horde/index.js';
import { FIXTURES, baseFiles, expectError, expectOk, tempRoot, writeFiles } from '../fixtures/hordes/temp-horde.js';
import { cleanups } from '../../testkit/cleanup.js';

const withId = (id: string): Record<string, string> =>
  baseFiles({ horde: `---\nid = "${id}"\npipeline = ["intake", "check", "report"]\n---\n` });

function setup(): { builtinDir: string; userDir: string; root: string; cleanup(): void } {
  const { root, cleanup } = tempRoot();
  const builtinDir = path.join(root, 'builtin');
  const userDir = path.join(root, 'user');
  for (const [folder, files] of Object.entries({ alpha: withId('alpha'), beta: withId('beta') })) writeFiles(path.join(builtinDir, folder), files);
  for (const [folder, files] of Object.entries({ mine: withId('mine'), copycat: withId('alpha'), broken: { 'horde.md': '---\nid = "broken"\n' } })) {
    writeFiles(path.join(userDir, folder), files);
  }
  writeFiles(path.join(userDir, 'notes'), { 'README.md': 'not a horde' });
  return { builtinDir, userDir, root, cleanup };
}

void test('listHordes finds every folder with a horde.md, built-ins first, each with origin and result', async (t) => {
  const s = setup();
  cleanups(t)(s.cleanup);
  const catalog = await listHordes({ builtinDir: s.builtinDir, userDir: s.userDir });
  assert.equal(catalog.builtinDir, s.builtinDir);
  assert.equal(catalog.userDir, s.userDir);
  assert.deepEqual(catalog.entries.map((e) => [e.id, e.origin, e.result.ok]), [
    ['alpha', 'builtin', true],
    ['beta', 'builtin', true],
    ['broken', 'user', false],
    ['alpha', 'user', false],
    ['mine', 'user', true],
  ]);
  const alpha = catalog.entries[0];
  assert.ok(alpha?.result.ok && alpha.result.horde.origin === 'builtin');
  const mine = catalog.entries[4];
  assert.ok(mine?.result.ok && mine.result.horde.origin === 'user');
});

void test('a user horde with a built-in id is an error on that user horde, naming the built-in', async (t) => {
  const s = setup();
  cleanups(t)(s.cleanup);
  const catalog = await listHordes({ builtinDir: s.builtinDir, userDir: s.userDir });
  const copycat = catalog.entries.find((e) => e.dir === path.join(s.userDir, 'copycat'));
  assert.ok(copycat);
  const p = expectError(copycat.result, { code: 'KW_ERR_HORDE_ID_TAKEN', file: 'horde.md', key: 'id', line: 2 });
  assert.match(p.message, /already used by the builtin horde in .*builtin[/\\]alpha/);
  // The built-in one is untouched and is what the id resolves to.
  const resolved = await resolveHordeRef('alpha', catalog);
  assert.equal(resolved.origin, 'builtin');
});

void test('a missing user folder is no error', async (t) => {
  const s = setup();
  cleanups(t)(s.cleanup);
  const catalog = await listHordes({ builtinDir: s.builtinDir, userDir: path.join(s.root, 'nope') });
  assert.deepEqual(catalog.entries.map((e) => e.id), ['alpha', 'beta']);
});

void test('loader options reach every horde of the catalog', async (t) => {
  const s = setup();
  cleanups(t)(s.cleanup);
  writeFiles(path.join(s.userDir, 'mine'), { 'agents/check.md': '---\nname = "check"\nkind = "custom"\n---\n' });
  const strict = await listHordes({ userDir: s.userDir });
  assert.equal(strict.entries.find((e) => e.id === 'mine')?.result.ok, false);
  const wide = await listHordes({ userDir: s.userDir, knownKinds: new Set(['ingest', 'verify', 'custom']) });
  assert.equal(wide.entries.find((e) => e.id === 'mine')?.result.ok, true);
});

void test('resolveHordeRef: by id, by path (absolute, relative to cwd, a catalog folder), else KW_ERR_HORDE_NOT_FOUND', async (t) => {
  const s = setup();
  cleanups(t)(s.cleanup);
  const catalog = await listHordes({ builtinDir: s.builtinDir, userDir: s.userDir });
  assert.equal((await resolveHordeRef('mine', catalog)).dir, path.join(s.userDir, 'mine'));

  const fixture = await resolveHordeRef(path.join(FIXTURES, 'legacy-1x'), catalog);
  assert.equal(fixture.origin, 'path');
  assert.equal(expectOk(fixture.result).horde.origin, 'path');

  const relative = await resolveHordeRef('./legacy-1x', catalog, { cwd: FIXTURES });
  assert.equal(relative.id, 'legacy-1x');
  const bare = await resolveHordeRef('fork-join', catalog, { cwd: FIXTURES });
  assert.equal(bare.origin, 'path', 'a bare name that is no id is tried as a folder');

  const viaPath = await resolveHordeRef(path.join(s.userDir, 'mine'), catalog);
  assert.equal(viaPath.origin, 'user', 'a catalog folder keeps its origin');

  await assert.rejects(resolveHordeRef('nobody', catalog, { cwd: s.root }), (err: unknown) => {
    assert.ok(err instanceof KowalskiError);
    assert.equal(err.code, 'KW_ERR_HORDE_NOT_FOUND');
    assert.ok(err.message.includes(s.builtinDir) && err.message.includes(s.userDir), err.message);
    assert.ok(err.message.includes(path.join(s.root, 'nobody')), err.message);
    return true;
  });
  fs.mkdirSync(path.join(s.root, 'empty'));
  await assert.rejects(resolveHordeRef('./empty', catalog, { cwd: s.root }), /not a folder holding a horde\.md/);
});

void test('requireHorde returns the horde, or throws KW_ERR_HORDE_INVALID listing every error', async (t) => {
  const s = setup();
  cleanups(t)(s.cleanup);
  const catalog = await listHordes({ builtinDir: s.builtinDir, userDir: s.userDir });
  const beta = await resolveHordeRef('beta', catalog);
  assert.equal(requireHorde(beta).id, 'beta');
  const broken = await resolveHordeRef('broken', catalog);
  assert.throws(() => requireHorde(broken), (err: unknown) => {
    assert.ok(err instanceof KowalskiError);
    assert.equal(err.code, 'KW_ERR_HORDE_INVALID');
    assert.deepEqual(err.where, { file: 'horde.md', line: 1 });
    assert.match(err.message, /^horde\.md:1: .*never closed.* \[KW_ERR_FRONT_MATTER\]$/m);
    return true;
  });
});
