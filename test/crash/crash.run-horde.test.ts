/**
 * Durability of `run_horde`: a chat agent starts a horde; the engine (a child process; the
 * scripted fake Ollama lives in this process, so it outlives every kill) is killed with
 * SIGKILL after the call's intent is committed, while the run it started is under way, and
 * after the run ended but before the call's result is recorded; then restarted. The turn
 * ends with the agent's answer; the horde ran once (its run counted in the store, its command
 * in a ledger file the command itself appends to, outside the engine); the agent was told
 * the run succeeded; no answered model call was asked again.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { test } from 'node:test';
import { createEngine } from '../../engine/index.js';
import { agentOf, perAgent, profile, writeTeam } from '../../testkit/chat.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeModelServer } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';
import { CHAT_CHILD } from '../../testkit/crash/chat-support.js';
import { harness } from '../../testkit/crash/support.js';
import { writeHorde } from '../support/engine.js';
import { testOwnCode } from '../../testkit/dist.js';

interface Setup { home: string; ledger: string; server: FakeModelServer }

async function setup(t: TestContext): Promise<Setup> {
  const server = await startFakeOllama(perAgent({
    runner: [{ toolCalls: [{ name: 'run_horde', arguments: { horde: 'stamp', wait_seconds: 60 } }] }, { text: 'Stamped.' }],
  }));
  cleanups(t)(() => server.close());
  const root = tempDir(t, 'kw-crash-run-horde-');
  const home = path.join(root, 'home');
  const ledger = path.join(root, 'stamps.txt');
  writeTeam(home, { runner: profile('runner', 'tools = ["run_horde"]') });
  fs.writeFileSync(path.join(home, 'config.toml'), `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${server.url}"\n`);
  writeHorde(path.join(home, 'hordes', 'stamp'), 'id = "stamp"\npipeline = ["stamp"]\nconfirm_commands = false', {
    stamp: `kind = "verify"\nverify_command = "echo stamp >> ${ledger}"`,
  });
  return { home, ledger, server };
}

for (const point of ['chat-after-tool-intent:1', 'after-dispatch:1', 'chat-before-tool-result:1']) {
  test(`kill -9 at ${point} of a run_horde call: the horde ran once, the agent was told it succeeded`, async (t) => {
    const s = await setup(t);
    const args = ['runner', '1', '1', 'stamp'];
    const first = await harness(s.home, args, { script: CHAT_CHILD, env: { KOWALSKI_CRASH_AT: point } });
    assert.equal(first.signal, 'SIGKILL', `killed where asked (exit ${first.code}): ${first.stderr}\n${first.lines.join('\n')}`);
    const second = await harness(s.home, args, { script: CHAT_CHILD });
    assert.equal(second.code, 0, `${second.stderr}\n${second.lines.join('\n')}`);
    assert.ok(second.lines.some((l) => /^DONE c[0-9a-z]+ 1 done$/.test(l)), second.lines.join('\n'));

    assert.deepEqual(fs.readFileSync(s.ledger, 'utf8'), 'stamp\n', 'the command ran once');
    const asked = s.server.requests.filter((r) => r.path === '/api/chat' && agentOf(r.body) === 'runner');
    assert.equal(asked.length, 2, 'no model call was asked twice');
    const told = (asked[1]!.body.messages as Array<{ role: string; content: string }>).filter((m) => m.role === 'tool').map((m) => m.content);
    assert.equal(told.length, 1);

    const engine = await createEngine({ ownCode: testOwnCode(), dataDir: s.home });
    try {
      const runs = engine.listRuns({ horde: 'stamp' });
      assert.equal(runs.length, 1, 'one run');
      assert.equal(runs[0]!.state, 'succeeded');
      assert.match(told[0]!, new RegExp(`^Run ${runs[0]!.id} of horde "stamp" succeeded\\.`));
    } finally {
      await engine.close();
    }
  });
}
