/**
 * Durability of an `agent` step: its turn delegates to a writer who creates a vault note;
 * the engine (a child process; the scripted fake Ollama lives in this process, so it
 * outlives every kill) is killed with SIGKILL in the delegation — before the sub-agent's
 * model call, after the note's write intent, after the note is in place, before the lead's
 * last call — then restarted. The run finishes with the lead's answer as the step's
 * artifact; no answered model call was asked again (the fake's ledger of requests, kept
 * outside the engine); the note was written once and its audit row is done.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { test } from 'node:test';
import { createEngine } from '../../engine/index.js';
import { perAgent, profile, writeTeam } from '../../testkit/chat.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeModelServer } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';
import { harness } from '../../testkit/crash/support.js';
import { writeHorde } from '../support/engine.js';
import { testOwnCode } from '../../testkit/dist.js';

const NOTE = 'reports/tea.md';
const ANSWER = '# Report\n\nThe note is written.';

interface Setup { home: string; horde: string; server: FakeModelServer }

async function setup(t: TestContext): Promise<Setup> {
  const server = await startFakeOllama(perAgent({
    lead: [{ toolCalls: [{ name: 'delegate_to_agent', arguments: { agent: 'writer', task: 'write the tea note' } }] }, { text: ANSWER }],
    writer: [{ toolCalls: [{ name: 'create_note', arguments: { path: NOTE, content: '# Tea\n\nAt four.' } }] }, { text: 'written' }],
  }));
  cleanups(t)(() => server.close());
  const home = path.join(tempDir(t, 'kw-crash-agent-'), 'home');
  writeTeam(home, {
    lead: profile('lead', 'tools = ["delegate_to_agent"]\nmax_iterations = 6'),
    writer: profile('writer', 'tools = ["create_note"]'),
  });
  fs.writeFileSync(path.join(home, 'config.toml'), `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${server.url}"\n`);
  const horde = path.join(home, 'hordes', 'report');
  writeHorde(horde, 'id = "report"\npipeline = ["report"]', { report: 'kind = "agent"\nagent = "lead"\nprompt_file = "prompts/report.md"' });
  fs.mkdirSync(path.join(horde, 'prompts'));
  fs.writeFileSync(path.join(horde, 'prompts', 'report.md'), 'Have the tea note written.');
  return { home, horde, server };
}

for (const point of ['chat-in-subagent-call:1', 'vault-after-intent:1', 'vault-after-file:1', 'chat-in-model-call:4']) {
  test(`kill -9 at ${point} of an agent step's delegation: the run finishes, no answered model call asked again, the note written once`, async (t) => {
    const s = await setup(t);
    const first = await harness(s.home, ['start', s.horde, '1'], { env: { KOWALSKI_CRASH_AT: point } });
    assert.equal(first.signal, 'SIGKILL', `killed where asked (exit ${first.code}): ${first.stderr}\n${first.lines.join('\n')}`);
    const runId = first.lines.find((l) => l.startsWith('ACK '))!.slice(4);
    const second = await harness(s.home, ['resume']);
    assert.equal(second.code, 0, `${second.stderr}\n${second.lines.join('\n')}`);
    assert.ok(second.lines.includes(`DONE ${runId} succeeded`), second.lines.join('\n'));

    // Four model calls in all, each asked once: a call in flight at the kill had not been sent.
    const asked = s.server.requests.filter((r) => r.path === '/api/chat');
    assert.equal(asked.length, 4, 'no model call was asked twice');
    assert.ok(asked.every((r) => r.answered));

    const engine = await createEngine({ ownCode: testOwnCode(), dataDir: s.home });
    try {
      const run = engine.getRun(runId);
      const step = run.steps.find((x) => x.name === 'report')!;
      assert.equal(fs.readFileSync(path.join(run.workdir, step.artifact!), 'utf8').trim(), ANSWER);
      assert.equal(fs.readFileSync(path.join(s.home, 'vault', ...NOTE.split('/')), 'utf8'), '# Tea\n\nAt four.');
      const writes = engine.vault.writes({ limit: 10 });
      assert.deepEqual(writes.map((w) => [w.op, w.path, w.state, w.agent]), [['create', NOTE, 'done', 'writer']], 'the note was written once');
      const [link] = engine.chat.stepSessionsOf(runId);
      assert.equal(writes[0]!.sessionId, link!.sessionId, "the write is audited with the step's session");
      assert.equal(engine.getRun(runId).budget.spent.model_calls, 4);
    } finally {
      await engine.close();
    }
  });
}
