import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { loadHorde, splitFrontMatter } from '../../engine/horde/index.js';
import { baseFiles, expectError, expectOk, writeHorde } from '../fixtures/hordes/temp-horde.js';
import { cleanups } from '../../testkit/cleanup.js';

void test('TOML between --- fences is parsed; the body is what follows the closing fence', () => {
  const r = splitFrontMatter('---\nid = "a"\nn = 3\n---\n# Title\n\ntext\n');
  assert.ok(r.ok);
  assert.deepEqual(r.value.data, { id: 'a', n: 3 });
  assert.equal(r.value.body, '# Title\n\ntext\n');
});

void test('+++ fences work the same', () => {
  const r = splitFrontMatter('+++\nid = "a"\n+++\nbody');
  assert.ok(r.ok);
  assert.deepEqual(r.value.data, { id: 'a' });
  assert.equal(r.value.body, 'body');
});

void test('a UTF-8 BOM and CRLF line ends are fine', () => {
  const r = splitFrontMatter('\uFEFF---\r\nid = "a"\r\npipeline = ["x"]\r\n---\r\nline one\r\nline two\r\n');
  assert.ok(r.ok);
  assert.deepEqual(r.value.data, { id: 'a', pipeline: ['x'] });
  assert.equal(r.value.body, 'line one\nline two\n');
});

void test('a whole horde written with BOM and CRLF loads', async (t) => {
  const files = Object.fromEntries(Object.entries(baseFiles()).map(([k, v]) => [k, `\uFEFF${v.replace(/\n/g, '\r\n')}`]));
  const h = writeHorde(files);
  cleanups(t)(h.cleanup);
  const r = expectOk(await loadHorde(h.dir));
  assert.deepEqual(r.horde.pipeline, ['intake', 'check', 'report']);
  assert.equal(r.horde.steps.check?.verifyCommand, 'true');
});

void test('a closing fence must match the opening one', () => {
  const r = splitFrontMatter('---\nid = "a"\n+++\nbody\n');
  assert.equal(r.ok, false);
  assert.ok(!r.ok && r.line === 1 && /never closed/.test(r.message));
});

void test('an unclosed fence is an error on line 1 naming the fence', async (t) => {
  const h = writeHorde({ ...baseFiles(), 'horde.md': '---\nid = "base"\npipeline = ["intake"]\n' });
  cleanups(t)(h.cleanup);
  const p = expectError(await loadHorde(h.dir), { code: 'KW_ERR_FRONT_MATTER', file: 'horde.md', line: 1 });
  assert.match(p.message, /never closed/);
});

void test('a file without front matter is an error', async (t) => {
  const h = writeHorde({ ...baseFiles(), 'agents/check.md': '# just markdown\n' });
  cleanups(t)(h.cleanup);
  const p = expectError(await loadHorde(h.dir), { code: 'KW_ERR_FRONT_MATTER', file: 'agents/check.md', line: 1 });
  assert.match(p.message, /first line must be exactly --- or \+\+\+/);
});

void test('a TOML error carries the line number of the file, not of the TOML block', async (t) => {
  const horde = '---\nid = "base"\npipeline = ["intake", "check", "report"]\n\nconfirm_commands = yes\n---\n';
  const h = writeHorde(baseFiles({ horde }));
  cleanups(t)(h.cleanup);
  const p = expectError(await loadHorde(h.dir), { code: 'KW_ERR_FRONT_MATTER', file: 'horde.md' });
  assert.equal(p.line, 5);
  assert.match(p.message, /TOML does not parse/);
});

void test('YAML front matter is rejected with a hint, and the other files are still checked', async (t) => {
  const h = writeHorde(baseFiles({
    check: '---\nname: check\nkind: verify\n---\n',
    report: '---\nname = "report"\nkind = "no-such-kind"\n---\n',
  }));
  cleanups(t)(h.cleanup);
  const r = await loadHorde(h.dir);
  const p = expectError(r, { code: 'KW_ERR_FRONT_MATTER', file: 'agents/check.md', line: 2 });
  assert.match(p.message, /looks like YAML/);
  expectError(r, { code: 'KW_ERR_STEP_KIND_UNKNOWN', file: 'agents/report.md', key: 'kind' });
});

void test('a ---js block is an error and is never evaluated', async (t) => {
  const h = writeHorde(baseFiles());
  cleanups(t)(h.cleanup);
  const marker = path.join(h.root, 'evaluated');
  const js = `---js\n{ id: require('fs').writeFileSync(${JSON.stringify(marker)}, 'x') }\n---\n`;
  fs.writeFileSync(path.join(h.dir, 'horde.md'), js);
  const p = expectError(await loadHorde(h.dir), { code: 'KW_ERR_FRONT_MATTER', file: 'horde.md', line: 1 });
  assert.match(p.message, /TOML front matter only/);
  assert.equal(fs.existsSync(marker), false, 'the JavaScript block must not run');
});

void test('YAML with a JS tag is not evaluated either', () => {
  const r = splitFrontMatter('---\nid: !!js/function "function(){ globalThis.kwPwned = true }"\n---\n');
  assert.equal(r.ok, false);
  assert.equal((globalThis as { kwPwned?: boolean }).kwPwned, undefined);
});

void test('TOML dates become ISO strings, so a horde stays plain JSON', () => {
  const r = splitFrontMatter('---\nsince = 2024-05-01\nat = 2024-05-01T06:00:00Z\n---\n');
  assert.ok(r.ok);
  assert.deepEqual(JSON.parse(JSON.stringify(r.value.data)), r.value.data);
  assert.equal(r.value.data.at, '2024-05-01T06:00:00.000Z');
  assert.equal(typeof r.value.data.since, 'string');
});

void test('__proto__ keys cannot reach an object prototype', () => {
  const r = splitFrontMatter('---\n__proto__ = { polluted = true }\nid = "a"\n---\n');
  assert.ok(r.ok);
  assert.equal(({} as { polluted?: boolean }).polluted, undefined);
  assert.deepEqual(Object.keys(r.value.data), ['id']);
});

void test('empty front matter is an empty table', () => {
  const r = splitFrontMatter('---\n---\n');
  assert.ok(r.ok);
  assert.deepEqual(r.value.data, {});
});
