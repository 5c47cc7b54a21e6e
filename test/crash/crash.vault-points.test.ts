/**
 * Durability of vault writes: a chat agent (the scripted fake Ollama, in this process so it
 * outlives every kill) creates a note then appends to it, in a child process killed with
 * SIGKILL at the vault's crash points — after a write's intent is committed, after the
 * note is renamed into place — of the create and of the append. After the restart the
 * note and the audit agree: every row is done, sizes and hashes are the note's, each text
 * is in the note once, and each row's trace is the model call that asked. A note edited
 * by a person between the kill and the restart is not touched: the write is reported failed.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { test } from 'node:test';
import { createEngine, loadConfig } from '../../engine/index.js';
import { perAgent, profile, writeTeam } from '../../testkit/chat.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeModelServer } from '../../testkit/fake-models.js';
import { testStoreConfig } from '../../testkit/pg-store.js';
import { tempDir } from '../../testkit/tmp.js';
import { harness } from '../../testkit/crash/support.js';
import type { HarnessOptions, HarnessRun } from '../../testkit/crash/support.js';
import { cleanups } from '../../testkit/cleanup.js';
import { testOwnCode } from '../../testkit/dist.js';

const CHAT_CHILD = new URL('../../testkit/crash/chat-child.ts', import.meta.url).pathname;
const NOTE = 'crash/meeting.md';
const sha = (s: string): string => createHash('sha256').update(s).digest('hex');

interface Setup { home: string; server: FakeModelServer; file: string }

async function setup(t: TestContext): Promise<Setup> {
  const server = await startFakeOllama(perAgent({
    scribe: [
      { toolCalls: [{ name: 'create_note', arguments: { path: NOTE, content: '# Meeting\n- first' } }] },
      { toolCalls: [{ name: 'append_note', arguments: { path: NOTE, content: '- second\n' } }] },
      { text: 'Written.' },
    ],
  }));
  cleanups(t)(() => server.close());
  const home = path.join(tempDir(t, 'kw-crash-vault-'), 'home');
  writeTeam(home, { scribe: profile('scribe', 'tools = ["create_note", "append_note"]\nmax_iterations = 3') });
  fs.writeFileSync(path.join(home, 'config.toml'), `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${server.url}"\n`);
  return { home, server, file: path.join(home, 'vault', ...NOTE.split('/')) };
}

const life = (s: Setup, options: HarnessOptions = {}): Promise<HarnessRun> => harness(s.home, ['scribe', '1', '1', 'note'], { ...options, script: CHAT_CHILD });

/** The note, the audit and the traces, read by a fresh engine after the last life. */
async function audit(s: Setup) {
  // The store the children used: the data folder's database when the run store is on Postgres (pg.crash.vault-points), else its SQLite.
  const config = loadConfig(path.join(s.home, 'config.toml'));
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: s.home, config: { ...config, store: { ...config.store, ...await testStoreConfig(s.home) } } });
  try {
    const [session] = engine.chat.list(10);
    const writes = engine.vault.writes({ limit: 10 }).reverse();
    const traces = engine.listTraces({ sessionId: session!.id, limit: 10 });
    return { session: session!, writes, traceOfSeq: new Map(traces.map((tr) => [tr.seq, tr.id])), note: fs.existsSync(s.file) ? fs.readFileSync(s.file, 'utf8') : null };
  } finally {
    await engine.close();
  }
}

for (const [point, k, what] of [
  ['vault-after-intent', 1, 'the create'],
  ['vault-after-file', 1, 'the create'],
  ['vault-after-intent', 2, 'the append'],
  ['vault-after-file', 2, 'the append'],
] as const) {
  test(`kill -9 at ${point} of ${what}: after the restart the note and the audit agree, each text written once`, async (t) => {
    const s = await setup(t);
    const first = await life(s, { env: { KOWALSKI_CRASH_AT: `${point}:${k}` } });
    assert.equal(first.signal, 'SIGKILL', `killed where asked (exit ${first.code}): ${first.stderr}`);
    const second = await life(s);
    assert.equal(second.code, 0, `${second.stderr}\n${second.lines.join('\n')}`);
    assert.ok(second.lines.some((l) => / 1 done$/.test(l)), second.lines.join('\n'));

    const a = await audit(s);
    assert.equal(a.note, '# Meeting\n- first\n- second\n');
    assert.deepEqual(a.writes.map((w) => [w.op, w.state, w.bytesBefore, w.bytesAfter, w.content, w.sha256Before, w.sha256After]), [
      ['create', 'done', 0, 17, '# Meeting\n- first', null, sha('# Meeting\n- first')],
      ['append', 'done', 17, 27, '\n- second\n', sha('# Meeting\n- first'), sha(a.note!)],
    ]);
    assert.deepEqual(a.writes.map((w) => [w.sessionId, w.agent, w.traceId]), [[a.session.id, 'scribe', a.traceOfSeq.get(1)], [a.session.id, 'scribe', a.traceOfSeq.get(2)]]);
    // Each model call was asked once more at most (the one whose answer was not recorded is none here: the kill is in a tool).
    const calls = s.server.requests.filter((r) => r.path === '/api/chat');
    assert.equal(calls.length, 3, 'no model call was made twice');
  });
}

test('a note a person edits between the kill and the restart is left alone: the interrupted write is reported failed, and the agent is told', async (t) => {
  const s = await setup(t);
  const first = await life(s, { env: { KOWALSKI_CRASH_AT: 'vault-after-intent:2' } });
  assert.equal(first.signal, 'SIGKILL');
  assert.equal(fs.readFileSync(s.file, 'utf8'), '# Meeting\n- first');
  fs.writeFileSync(s.file, '# Meeting\n- first\n- by hand\n');
  const second = await life(s);
  assert.equal(second.code, 0, second.stderr);

  const a = await audit(s);
  assert.equal(a.note, '# Meeting\n- first\n- by hand\n');
  const append = a.writes[1]!;
  assert.deepEqual([append.op, append.state, append.error?.code], ['append', 'failed', 'KW_ERR_VAULT_WRITE_INTERRUPTED']);
  assert.match(append.error!.message, /neither as before it \(17 bytes\) nor as after it \(27 bytes\): it holds 28 bytes/);
  const told = s.server.requests.filter((r) => r.path === '/api/chat').at(-1)!.body.messages.at(-1);
  assert.equal(told.role, 'tool');
  assert.match(told.content, /KW_ERR_VAULT_WRITE_INTERRUPTED/);
});
