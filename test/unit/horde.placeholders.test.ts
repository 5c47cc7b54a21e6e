import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadHorde, scanPlaceholders } from '../../engine/horde/index.js';
import { resolveCommand } from '../../steps/index.js';
import { FIXTURES, baseFiles, expectOk, tempRoot, writeHorde } from '../fixtures/hordes/temp-horde.js';
import { cleanups } from '../../testkit/cleanup.js';

void test('scan finds the three placeholder forms and names everything else', () => {
  const s = scanPlaceholders('a {{input.x}} {{workdir}} {{run_dir}} {{ input.y }} {{input.}} {{secret}}');
  assert.deepEqual(s.placeholders.map((p) => p.text), ['{{input.x}}', '{{workdir}}', '{{run_dir}}']);
  assert.deepEqual(s.invalid, ['{{ input.y }}', '{{input.}}', '{{secret}}']);
});

void test('what the loader accepts, the steps layer expands: the full fixture\'s commands resolve', async (t) => {
  const { horde } = expectOk(await loadHorde(path.join(FIXTURES, 'full')));
  const { root, cleanup } = tempRoot();
  cleanups(t)(cleanup);
  const spec = resolveCommand(horde.steps.check!, { horde, input: { project: root, mode: 'fast' }, workdir: path.join(root, 'w'), runDir: root });
  assert.equal(spec.cwd, root);
  assert.equal(spec.argv[spec.argv.length - 1], `npm test -- --grep 'fast' > '${root}'/log.txt`);
});

void test('a form answer in verify_command stays one word: sh runs exactly what the user typed', async (t) => {
  const h = writeHorde(baseFiles({ check: '---\nname = "check"\nkind = "verify"\nverify_command = "printf %s {{input.project}} > {{run_dir}}/out.txt"\n---\n' }));
  cleanups(t)(h.cleanup);
  const { horde } = expectOk(await loadHorde(h.dir));
  const nasty = `it's "quoted"; $(touch ${path.join(h.root, 'pwned')}) \`x\` & more`;
  const spec = resolveCommand(horde.steps.check!, { horde, input: { project: nasty }, workdir: h.root, runDir: h.root });
  const [program, ...args] = spec.argv;
  const r = spawnSync(program!, args, { cwd: spec.cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(fs.readFileSync(path.join(h.root, 'out.txt'), 'utf8'), nasty);
  assert.equal(fs.existsSync(path.join(h.root, 'pwned')), false);
});
