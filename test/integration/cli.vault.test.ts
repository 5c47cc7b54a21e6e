/**
 * `kowalski vault writes|revert|ls|show` as real processes: on an embedded engine, and
 * through a server that owns the data directory (an in-process API on a real socket), with
 * the same output and exit codes — 0 done, 1 a conflict with the diff printed, 2 bad input.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { test } from 'node:test';
import { buildApi } from '../../api/index.js';
import { createEngine } from '../../engine/index.js';
import type { Engine } from '../../engine/index.js';
import { listen } from '../support/api.js';
import { cli, cliSandbox, stdoutJson } from '../../testkit/cli.js';
import { cleanups } from '../../testkit/cleanup.js';
import { TEST_TOKEN, writeTestToken } from '../support/token.js';
import { testOwnCode } from '../../testkit/dist.js';

const origin = (key: string) => ({ sessionId: null, agent: null, traceId: null, callKey: key, by: 'cli' });

/** Three writes: a.md created then appended to, b.md created. */
async function seed(engine: Engine): Promise<void> {
  await engine.vault.create('notes/a.md', '# Alpha\none\n', origin('1'));
  await engine.vault.append('notes/a.md', 'two\n', origin('2'));
  await engine.vault.create('b.md', 'bee', origin('3'));
}

async function seeded(t: TestContext): Promise<string> {
  const { home } = cliSandbox(t);
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  await seed(engine).finally(() => engine.close());
  return home;
}

test('embedded: writes lists the audit, revert undoes an append and refuses after a hand edit with the diff, ls and show read the notes', async (t) => {
  const home = await seeded(t);
  const writes = await cli(home, ['vault', 'writes']);
  assert.equal(writes.code, 0, writes.stderr);
  const lines = writes.stdout.trimEnd().split('\n');
  assert.equal(lines.length, 3);
  assert.match(lines[0]!, /^ {4}3 {2}\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ {2}create done {4}b\.md {2}0 → 3 bytes {2}cli$/);
  assert.match(lines[1]!, /append done {4}notes\/a\.md {2}12 → 16 bytes/);
  const onlyA = stdoutJson<{ writes: Array<{ writeId: number }> }>(await cli(home, ['vault', 'writes', '--path', 'notes/a.md', '--json']));
  assert.deepEqual(onlyA.writes.map((w) => w.writeId), [2, 1]);

  const revert = await cli(home, ['vault', 'revert', '2']);
  assert.equal(revert.code, 0, revert.stderr);
  assert.equal(revert.stdout, 'reverted write 2: notes/a.md cut back to 12 bytes (write 4)\n');
  assert.equal(fs.readFileSync(path.join(home, 'vault', 'notes', 'a.md'), 'utf8'), '# Alpha\none\n');
  assert.match((await cli(home, ['vault', 'writes', '--limit', '1'])).stdout, /^ {4}4 .* revert done {4}notes\/a\.md {2}16 → 12 bytes {2}cli undoes 2$/m);

  fs.appendFileSync(path.join(home, 'vault', 'b.md'), ' and honey');
  const conflict = await cli(home, ['vault', 'revert', '3']);
  assert.equal(conflict.code, 1);
  assert.match(conflict.stderr, /cannot revert write 3: b\.md is no longer exactly what it created .*\[KW_ERR_VAULT_CONFLICT\]/);
  assert.match(conflict.stdout, /^-bee$/m);
  assert.match(conflict.stdout, /^\+bee and honey$/m);
  assert.equal(fs.readFileSync(path.join(home, 'vault', 'b.md'), 'utf8'), 'bee and honey');

  for (const [args, code] of [[['vault', 'revert', 'abc'], 'KW_ERR_USAGE'], [['vault', 'revert', '99'], 'KW_ERR_VAULT_WRITE_NOT_FOUND'], [['vault', 'revert', '2'], 'KW_ERR_VAULT_NOT_REVERTIBLE'], [['vault', 'show', '../config.toml'], 'KW_ERR_VAULT_PATH']] as const) {
    const r = await cli(home, [...args, '--json']);
    assert.deepEqual([r.code, stdoutJson<{ error: { code: string } }>(r).error.code], [2, code], r.stdout);
  }

  const ls = await cli(home, ['vault', 'ls']);
  assert.match(ls.stdout, /^b\.md {2}b {2}\(13 bytes, .*\)\nnotes\/a\.md {2}Alpha {2}\(12 bytes, .*\)\n$/);
  assert.equal((await cli(home, ['vault', 'show', 'notes/a.md'])).stdout, '# Alpha\none\n');
  const shown = stdoutJson<{ note: { title: string }; writes: Array<{ writeId: number }> }>(await cli(home, ['vault', 'show', 'notes/a.md', '--json']));
  assert.deepEqual([shown.note.title, shown.writes.map((w) => w.writeId)], ['Alpha', [4, 2, 1]]);
});

test('through the server that owns the data directory: the same answers, the conflict diff included', async (t) => {
  const { home } = cliSandbox(t);
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  cleanups(t)(() => engine.close());
  await seed(engine);
  const api = await buildApi(engine, { token: TEST_TOKEN, port: 0 });
  cleanups(t)(() => api.app.close());
  const { base } = await listen(api);
  writeTestToken(home);
  engine.announce(`${base}/`);

  const revert = stdoutJson<{ write: { reverts: number; by: string } }>(await cli(home, ['vault', 'revert', '2', '--json']));
  assert.deepEqual([revert.write.reverts, revert.write.by], [2, 'cli']);
  fs.writeFileSync(path.join(home, 'vault', 'b.md'), 'wasp');
  const conflict = await cli(home, ['vault', 'revert', '3', '--json']);
  assert.equal(conflict.code, 1);
  const body = stdoutJson<{ error: { code: string; diff: string } }>(conflict);
  assert.equal(body.error.code, 'KW_ERR_VAULT_CONFLICT');
  assert.match(body.error.diff, /^\+wasp$/m);
  const writes = stdoutJson<{ writes: Array<{ writeId: number; op: string }> }>(await cli(home, ['vault', 'writes', '--json']));
  assert.deepEqual(writes.writes.map((w) => [w.writeId, w.op]), [[4, 'revert'], [3, 'create'], [2, 'append'], [1, 'create']]);
  assert.equal((await cli(home, ['vault', 'show', 'b.md'])).stdout, 'wasp\n');
});
