/**
 * `run_horde`: a chat agent starts a horde through the whole engine, its model a scripted
 * fake Ollama reached by the real `ollama` client. A run that ends within the wait comes
 * back with its delivery's text; a run that parks comes back as waiting for the operator
 * (the agent cannot approve), and `run_id` waits for it again once the operator decided;
 * the run's provenance names the agent and the conversation, the Run view links back and
 * the transcript links the run. Refused: a horde that does not exist (with a suggestion),
 * a run of another conversation, an agent step, and "every tool" does not include it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { agentOf, chatSetup, perAgent, profile } from '../../testkit/chat.js';
import type { ChatSetup } from '../../testkit/chat.js';
import type { FakeScript, FakeTurn } from '../../testkit/fake-models.js';
import { writeHorde } from '../support/engine.js';

const BRIEF = '# Brief\n\nTea is served at four.';
const runHorde = (args: Record<string, unknown>) => ({ name: 'run_horde', arguments: args });

/** The runner's turns in order; any other request (a horde's model step) answers BRIEF. */
function script(runner: FakeTurn[], more: Record<string, FakeTurn[]> = {}): FakeScript {
  const agents = perAgent({ runner, ...more }) as (body: unknown, index: number) => FakeTurn;
  return (body, index) => (agentOf(body) === '?' ? { text: BRIEF } : agents(body, index));
}

const TEAM = {
  runner: profile('runner', 'tools = ["run_horde"]\nmax_iterations = 6'),
  // No `tools`: every tool, which leaves run_horde out.
  everything: profile('everything', ''),
};

/** `brief`: takes a topic, a model step writes the brief (its delivery). `gated`: a command the operator approves. */
function hordes(s: ChatSetup): void {
  const brief = path.join(s.home, 'hordes', 'brief');
  writeHorde(brief, 'id = "brief"\npipeline = ["intake", "write"]', {
    intake: 'kind = "ingest"\n[[inputs]]\nid = "topic"\ntype = "text"',
    write: 'kind = "process"\nprompt_file = "prompts/write.md"',
  });
  fs.mkdirSync(path.join(brief, 'prompts'), { recursive: true });
  fs.writeFileSync(path.join(brief, 'prompts', 'write.md'), 'Write a brief on the topic.');
  writeHorde(path.join(s.home, 'hordes', 'gated'), 'id = "gated"\npipeline = ["check"]', { check: 'kind = "verify"\nverify_command = "true"' });
}

/** What run_horde answered the runner, in order (the tool messages the fake was sent). */
function toolAnswers(s: ChatSetup): string[] {
  const last = s.server.requests.filter((r) => r.path === '/api/chat' && agentOf(r.body) === 'runner').at(-1);
  return (last?.body.messages as Array<{ role: string; content: string }> ?? []).filter((m) => m.role === 'tool').map((m) => m.content);
}

test('an agent starts a horde: the run ends within the wait and the agent reads its delivery; the run names the agent and conversation, the transcript links the run', async (t) => {
  const s = await chatSetup(t, script([{ toolCalls: [runHorde({ horde: 'brief', input: { topic: 'tea' } })] }, { text: 'The brief says tea is at four.' }]), TEAM);
  hordes(s);
  const session = s.engine.chat.create({ agent: 'runner', title: 'brief', by: 'test' });
  const out = await s.engine.chat.send(session.id, 'get me a brief on tea').done;
  assert.equal(out.stop, 'done');

  const [answer] = toolAnswers(s);
  const [run] = s.engine.listRuns({ horde: 'brief' });
  assert.ok(run !== undefined);
  assert.match(answer!, new RegExp(`^Run ${run.id} of horde "brief" succeeded\\. Its delivery, [^:]+:\\n\\n${BRIEF}`));
  assert.deepEqual(run.input, { topic: 'tea' });
  assert.match(run.provenance, new RegExp(`^agent:runner@${session.id}:`));
  assert.deepEqual(s.engine.getRun(run.id).askedBy, { agent: 'runner', sessionId: session.id });

  const item = s.engine.chat.get(session.id).transcript[0]!.items.find((i) => i.kind === 'tool');
  assert.deepEqual(item && item.kind === 'tool' && [item.name, item.status, item.runId], ['run_horde', 'done', run.id]);
});

test('a run that parks is reported as waiting for the operator; run_id waits for it again once the operator approved', async (t) => {
  const plan = { runner: [{ toolCalls: [runHorde({ horde: 'gated', wait_seconds: 30 })] }, { text: 'It waits for you.' }] };
  const s = await chatSetup(t, perAgent(plan), TEAM);
  hordes(s);
  const session = s.engine.chat.create({ agent: 'runner', title: 'gated', by: 'test' });
  await s.engine.chat.send(session.id, 'run the check').done;
  const [run] = s.engine.listRuns({ horde: 'gated' });
  assert.equal(run?.state, 'awaiting_input');
  const [parked] = toolAnswers(s);
  assert.match(parked!, /is parked, waiting for the operator: it waits on the operator's approval of step "check"\. You cannot approve it/);
  assert.match(parked!, new RegExp(`\\{"run_id": "${run.id}"\\}`));

  await s.engine.approve(run.id, { by: 'operator' });
  assert.equal(await s.engine.waitForRun(run.id), 'succeeded');
  plan.runner = [{ toolCalls: [runHorde({ run_id: run.id })] }, { text: 'It passed.' }];
  await s.engine.chat.send(session.id, 'and now?').done;
  assert.match(toolAnswers(s)[0]!, new RegExp(`^Run ${run.id} of horde "gated" succeeded\\.`));
  assert.equal(s.engine.listRuns({ horde: 'gated' }).length, 1, 'run_id started nothing');
});

test('refused: a horde that does not exist (with a suggestion), input with run_id, a run another conversation started; "every tool" leaves run_horde out', async (t) => {
  const plan: Record<string, FakeTurn[]> = {
    runner: [{ toolCalls: [runHorde({ horde: 'brif' }), runHorde({ run_id: 'r-nope', input: { a: 'b' } })] }, { text: 'I could not.' }],
    everything: [{ text: 'hello' }],
  };
  const s = await chatSetup(t, perAgent(plan), TEAM);
  hordes(s);
  const session = s.engine.chat.create({ agent: 'runner', title: 'typo', by: 'test' });
  await s.engine.chat.send(session.id, 'run brif').done;
  const [missing, both] = toolAnswers(s);
  assert.match(missing!, /KW_ERR_HORDE_NOT_FOUND/);
  assert.match(missing!, /no horde "brif"; did you mean "brief"\?/);
  assert.match(both!, /KW_ERR_TOOL_ARGS/);
  assert.equal(s.engine.listRuns({}).length, 0);

  // A run this conversation did not start: its id is refused as if it did not exist.
  const { horde } = await s.engine.resolveHorde('gated');
  const other = await s.engine.startRun(horde, {});
  plan.runner = [{ toolCalls: [runHorde({ run_id: other })] }, { text: 'No.' }];
  await s.engine.chat.send(session.id, 'how did it end?').done;
  assert.match(toolAnswers(s)[0]!, new RegExp(`KW_ERR_RUN_NOT_FOUND.*no run ${other} was started in this conversation`));

  const all = s.engine.chat.create({ agent: 'everything', title: 'all', by: 'test' });
  await s.engine.chat.send(all.id, 'hi').done;
  const offered = (s.server.requests.filter((r) => agentOf(r.body) === 'everything').at(-1)?.body.tools as Array<{ function: { name: string } }>).map((x) => x.function.name);
  assert.ok(offered.includes('remember') && !offered.includes('run_horde'), `every tool but run_horde: ${offered.join(', ')}`);
});
