/**
 * The `agent` step kind through the whole engine, its model a scripted fake Ollama reached
 * by the real `ollama` client: a step runs one turn of a team profile that delegates, with
 * that profile's tools; the answer is the step's artifact; the turn's session is linked to
 * the run and step; its model calls count in the run's budget; a profile that does not
 * exist fails the step naming it; a cancelled run ends the turn it was waiting on.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { chatSetup, perAgent, profile } from '../../testkit/chat.js';
import type { ChatSetup } from '../../testkit/chat.js';
import { waitFor } from '../../testkit/wait.js';
import { writeHorde } from '../support/engine.js';

const delegate = (agent: string, task: string) => ({ name: 'delegate_to_agent', arguments: { agent, task } });

const TEAM = {
  lead: profile('lead', 'tools = ["delegate_to_agent"]\nmax_iterations = 6'),
  reader: profile('reader', 'tools = ["read_file"]'),
};

/** `<home>/hordes/<id>`: ingest (input `topic`), then the agent step `research` (its prompt in prompts/), then `budget` lines. */
function agentHorde(s: ChatSetup, id: string, agent: string, more = ''): void {
  const dir = path.join(s.home, 'hordes', id);
  writeHorde(dir, `id = "${id}"\npipeline = ["intake", "research"]\n${more}`, {
    intake: 'kind = "ingest"\n[[inputs]]\nid = "topic"\ntype = "text"',
    research: `kind = "agent"\nagent = "${agent}"\nprompt_file = "prompts/research.md"\nnormalize_doc_title = "Findings"`,
  });
  fs.mkdirSync(path.join(dir, 'prompts'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'prompts', 'research.md'), 'Find out what notes.txt says about the topic.');
}

async function start(s: ChatSetup, id: string, topic = 'tea'): Promise<string> {
  const { horde } = await s.engine.resolveHorde(id);
  return s.engine.startRun(horde, { topic });
}

test('an agent step runs a turn of its profile with delegation; the answer is its artifact; the session is linked to the run and step', async (t) => {
  const s = await chatSetup(t, perAgent({
    lead: [{ toolCalls: [delegate('reader', 'read notes.txt')] }, { text: '# Findings\n\nThe notes say: tea at four.', usage: { input: 40, output: 10 } }],
    reader: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: 'tea at four' }],
  }), TEAM);
  fs.writeFileSync(path.join(s.files, 'notes.txt'), 'tea at four');
  agentHorde(s, 'study', 'lead');
  const runId = await start(s, 'study');
  assert.equal(await s.engine.waitForRun(runId), 'succeeded');

  const run = s.engine.getRun(runId);
  const step = run.steps.find((x) => x.name === 'research')!;
  const artifact = fs.readFileSync(path.join(run.workdir, step.artifact!), 'utf8');
  assert.match(artifact, /^# Findings\n\nThe notes say: tea at four\./);
  assert.match(step.summary ?? '', /agent lead, 4 model calls/);

  // The lead's message held the step's prompt and the run's answer.
  const chats = s.server.requests.filter((r) => r.path === '/api/chat');
  assert.equal(chats.length, 4);
  const first = JSON.stringify(chats[0]!.body.messages);
  assert.match(first, /Find out what notes\.txt says about the topic\./);
  assert.match(first, /topic: tea/);
  // The reader really read the file, with its own tools.
  assert.ok(JSON.stringify(chats[2]!.body.messages).includes('tea at four'));

  const [link] = s.engine.chat.stepSessionsOf(runId);
  assert.deepEqual(link && { step: link.step, agent: link.agent }, { step: 'research', agent: 'lead' });
  const session = s.engine.chat.get(link!.sessionId);
  assert.equal(session.agent, 'lead');
  assert.deepEqual(session.transcript[0]!.items.filter((i) => i.kind === 'delegation').map((i) => [i.agent, i.status]), [['reader', 'done']]);
  assert.deepEqual(s.engine.chat.stepOfSession(link!.sessionId), { runId, step: 'research' });
  assert.equal(s.engine.listTraces({ sessionId: link!.sessionId, limit: 10 }).length, 4);
  assert.equal(s.engine.listTraces({ runId, limit: 10 }).length, 4, "the run's calls are its agent step's");
  assert.deepEqual(s.engine.getRun(runId).agentTurns, [{ step: 'research', agent: 'lead', sessionId: link!.sessionId }]);
  assert.deepEqual(s.engine.chat.get(link!.sessionId).run, { runId, step: 'research' });
  // The run's budget counts the turn's calls.
  assert.equal(s.engine.getRun(runId).budget.spent.model_calls, 4);
});

test("the turn's model calls count in the run's [budget]: a later step parks when they crossed it", async (t) => {
  const s = await chatSetup(t, perAgent({ lead: [{ text: '# Findings\n\nDone.', usage: { input: 100, output: 50 } }] }), TEAM);
  const dir = path.join(s.home, 'hordes', 'capped');
  writeHorde(dir, 'id = "capped"\npipeline = ["intake", "research", "after"]\n[budget]\ntokens = 100', {
    intake: 'kind = "ingest"\n[[inputs]]\nid = "topic"\ntype = "text"',
    research: 'kind = "agent"\nagent = "lead"\nprompt_file = "prompts/research.md"',
    after: 'kind = "process"\nprompt_file = "prompts/research.md"',
  });
  fs.mkdirSync(path.join(dir, 'prompts'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'prompts', 'research.md'), 'Say done.');
  const runId = await start(s, 'capped');
  assert.equal(await s.engine.waitForRun(runId), 'awaiting_input');
  const view = s.engine.getRun(runId);
  assert.deepEqual(view.budget.parked?.over, ['tokens']);
  assert.equal(view.budget.spent.tokens, 150);
  assert.equal(view.steps.find((x) => x.name === 'after')?.state, 'pending');
});

test('an agent the team does not have fails the step, naming it; an agent step that lists tools or a model is refused when the horde loads', async (t) => {
  const s = await chatSetup(t, perAgent({}), TEAM);
  agentHorde(s, 'lost', 'nobody');
  const runId = await start(s, 'lost');
  assert.equal(await s.engine.waitForRun(runId), 'failed');
  const step = s.engine.getRun(runId).steps.find((x) => x.name === 'research')!;
  assert.equal(step.error?.code, 'KW_ERR_AGENT_NOT_FOUND');
  assert.match(step.error?.message ?? '', /nobody/);
  assert.equal(s.server.requests.length, 0);

  const dir = path.join(s.home, 'hordes', 'odd');
  writeHorde(dir, 'id = "odd"\npipeline = ["research"]', { research: 'kind = "agent"\nagent = "lead"\ntools = ["read_file"]\nmodel = "ollama:x"' });
  await assert.rejects(s.engine.resolveHorde('odd'), (err: any) => {
    assert.equal(err.code, 'KW_ERR_HORDE_INVALID');
    assert.match(err.message, /an agent step uses the tools of its profile \(team\/lead\.md\)/);
    assert.match(err.message, /an agent step uses the model of its profile/);
    return true;
  });
});

test('a cancelled run ends the turn its agent step was waiting on: nothing goes on at the next start', async (t) => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => { release = resolve; });
  const s = await chatSetup(t, perAgent({ lead: [{ text: 'late', heldUntil: held }] }), TEAM);
  agentHorde(s, 'slow', 'lead');
  const runId = await start(s, 'slow');
  await waitFor(() => s.server.requests.length === 1, 'the lead was asked');
  await s.engine.cancel(runId);
  assert.equal(await s.engine.waitForRun(runId), 'cancelled');
  release();
  const [link] = s.engine.chat.stepSessionsOf(runId);
  await waitFor(() => s.engine.chat.summary(link!.sessionId).state === 'idle', 'the turn ended');
  const session = s.engine.chat.summary(link!.sessionId);
  assert.equal(session.lastStop, 'error');
  assert.deepEqual(s.engine.chat.recover(), [], 'no turn is left to go on');
});
