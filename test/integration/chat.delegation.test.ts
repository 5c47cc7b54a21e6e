/**
 * The agent team through the engine, its model a scripted fake Ollama reached by the real
 * `ollama` client: a coordinator delegating to two sub-agents at once and merging their
 * answers, a sub-agent asking for a tool it may not use, a cycle, the depth cap, a budget
 * that runs out in the middle of the tree and the same turn finished after more is
 * granted, and streaming with tool calls.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { chatSetup, perAgent, profile } from '../../testkit/chat.js';

const delegate = (agent: string, task: string) => ({ name: 'delegate_to_agent', arguments: { agent, task } });

const TEAM = {
  boss: profile('boss', 'tools = ["delegate_to_agent"]'),
  alpha: profile('alpha', 'tools = ["read_file", "delegate_to_agent"]'),
  beta: profile('beta', 'tools = []'),
};

test('a coordinator delegates to two agents at once and merges their answers; the traces form the tree', async (t) => {
  const s = await chatSetup(t, perAgent({
    boss: [{ toolCalls: [delegate('alpha', 'find A'), delegate('beta', 'find B')] }, { text: 'A is 1 and B is 2.' }],
    alpha: [{ text: 'A is 1', chunkDelayMs: 30 }],
    beta: [{ text: 'B is 2', chunkDelayMs: 30 }],
  }), TEAM);
  const session = s.engine.chat.create({ agent: 'boss' });
  const sent = s.engine.chat.send(session.id, 'what are A and B?');
  const out = await sent.done;
  assert.equal(out.stop, 'done');
  assert.equal(out.text, 'A is 1 and B is 2.');
  assert.deepEqual(out.usage.calls, 4);
  assert.deepEqual(out.toolCalls.map((c) => [c.node, c.name, c.arguments.agent]), [['r', 'delegate_to_agent', 'alpha'], ['r', 'delegate_to_agent', 'beta']]);
  assert.equal(s.server.requests.filter((r) => r.path === '/api/chat').length, 4);

  // The second boss call saw both answers, in the order asked.
  const last = s.server.requests.at(-1)!.body;
  assert.deepEqual(last.messages.filter((m: any) => m.role === 'tool').map((m: any) => m.content), ['A is 1', 'B is 2']);

  // Both delegations started before either sub-agent had answered: they ran at once.
  const view = s.engine.chat.get(session.id);
  const items = view.transcript[0]!.items;
  assert.deepEqual(items.filter((i) => i.kind === 'delegation').map((i) => [i.agent, i.status]), [['alpha', 'done'], ['beta', 'done']]);
  const log = s.engine.chat.events(session.id).map((e) => e.event);
  const started = log.map((e, i) => (e.type === 'delegation.started' ? i : -1)).filter((i) => i >= 0);
  const firstChildAnswer = log.findIndex((e) => e.type === 'model.finished' && e.node !== 'r');
  assert.equal(started.length, 2);
  assert.ok(started[1]! < firstChildAnswer, 'the second delegation started before the first sub-agent answered');

  // Traces: the root's two calls; the first one's children are alpha's and beta's calls.
  assert.ok(out.traceId !== null);
  const traces = s.engine.listTraces({ sessionId: session.id, limit: 10 });
  assert.equal(traces.length, 4);
  const rootFirst = traces.find((tr) => tr.step === 'r' && tr.seq === 1)!;
  const children = s.engine.listTraces({ parentId: rootFirst.id, limit: 10 });
  assert.deepEqual(children.map((c) => c.agent).sort(), ['alpha', 'beta']);
  assert.ok(traces.every((tr) => tr.sessionId === session.id));
  assert.equal(traces.find((tr) => tr.id === out.traceId)?.seq, 2);
});

test('a sub-agent that calls a tool it is not allowed is refused and the tool never runs', async (t) => {
  const s = await chatSetup(t, perAgent({
    boss: [{ toolCalls: [delegate('beta', 'write the file')] }, { text: 'beta could not write it.' }],
    beta: [{ toolCalls: [{ name: 'write_file', arguments: { path: 'x.txt', content: 'no' } }] }, { text: 'I cannot write files.' }],
  }), TEAM);
  const session = s.engine.chat.create({ agent: 'boss' });
  const out = await s.engine.chat.send(session.id, 'write x.txt').done;
  assert.equal(out.stop, 'done');
  assert.equal(fs.existsSync(path.join(s.files, 'x.txt')), false);
  const betaSecond = s.server.requests.filter((r) => r.path === '/api/chat')[2]!.body;
  const refusal = betaSecond.messages.find((m: any) => m.role === 'tool');
  assert.match(refusal.content, /there is no tool "write_file"/);
  // Never recorded as a tool call either: nothing ran.
  assert.ok(!s.engine.chat.events(session.id).some((e) => e.event.type === 'tool.started' && e.event.name === 'write_file'));
});

test('a cycle (boss → alpha → boss) and a delegation past the depth cap end with tool errors the agent can act on', async (t) => {
  const s = await chatSetup(t, perAgent({
    boss: [{ toolCalls: [delegate('alpha', 'ask around')] }, { text: 'done' }],
    alpha: [{ toolCalls: [delegate('boss', 'help'), delegate('beta', 'help')] }, { text: 'nobody could help' }],
    beta: [{ text: 'unreachable' }],
  }), TEAM, '[chat]\nmax_depth = 2\n');
  const session = s.engine.chat.create({ agent: 'boss' });
  const out = await s.engine.chat.send(session.id, 'go').done;
  assert.equal(out.stop, 'done');
  const errors = s.engine.chat.events(session.id).flatMap((e) => (e.event.type === 'tool.finished' && e.event.error !== undefined ? [e.event.error] : []));
  assert.deepEqual(errors.map((e) => e.code).sort(), ['KW_ERR_AGENT_CYCLE', 'KW_ERR_AGENT_DEPTH']);
  assert.match(errors.find((e) => e.code === 'KW_ERR_AGENT_CYCLE')!.message, /boss → alpha → boss is a cycle/);
  assert.match(errors.find((e) => e.code === 'KW_ERR_AGENT_DEPTH')!.message, /past the cap of 2/);
  // beta was never called.
  assert.ok(!s.server.requests.some((r) => String(r.body?.messages?.[0]?.content).startsWith('You are beta.')));
});

test('the budget runs out inside a sub-agent: the turn stops typed, nothing more runs, and more budget finishes the same turn', async (t) => {
  const s = await chatSetup(t, perAgent({
    boss: [{ toolCalls: [delegate('alpha', 'read notes.txt')] }, { text: 'The notes say hello.' }],
    alpha: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: 'notes.txt says hello' }],
  }), { ...TEAM, boss: profile('boss', 'tools = ["delegate_to_agent"]\nmax_iterations = 2') });
  fs.writeFileSync(path.join(s.files, 'notes.txt'), 'hello');
  const session = s.engine.chat.create({ agent: 'boss' });
  const out = await s.engine.chat.send(session.id, 'what do my notes say?').done;
  assert.equal(out.stop, 'budget_exhausted');
  const statuses = (): string[] => s.engine.chat.get(session.id).transcript[0]!.items.map((i) => `${i.kind === 'tool' ? i.name : i.agent}:${i.status}`);
  assert.deepEqual(statuses(), ['alpha:stopped', 'read_file:done'], 'the delegation the budget cut is stopped, not working');
  assert.match(out.text, /budget of 2 model calls/);
  assert.deepEqual(out.undone?.map((u) => u.agent), ['boss', 'alpha']);
  assert.equal(s.server.requests.filter((r) => r.path === '/api/chat').length, 2);
  assert.equal(s.engine.chat.summary(session.id).state, 'exhausted');

  const more = await s.engine.chat.grant(session.id, 5).done;
  assert.equal(more.stop, 'done');
  assert.equal(more.text, 'The notes say hello.');
  assert.equal(more.turn, out.turn);
  assert.deepEqual(statuses(), ['alpha:done', 'read_file:done'], 'more budget took the same delegation up again');
  const calls = s.server.requests.filter((r) => r.path === '/api/chat').map((r) => JSON.stringify(r.body.messages));
  assert.equal(calls.length, 4);
  assert.equal(new Set(calls).size, 4, 'no model call that had finished was made again');
  assert.equal(s.engine.chat.summary(session.id).budget.used, 4);
  assert.equal(s.engine.chat.summary(session.id).budget.limit, 7);
});

test('streaming: tokens arrive as the model writes them, and tools run in the same turn', async (t) => {
  const s = await chatSetup(t, perAgent({
    alpha: [{ toolCalls: [{ name: 'read_file', arguments: { path: 'n.txt' } }] }, { text: 'The file says forty two.' }],
  }), TEAM);
  fs.writeFileSync(path.join(s.files, 'n.txt'), '42');
  const session = s.engine.chat.create({ agent: 'alpha' });
  const tokens: string[] = [];
  const out = await s.engine.chat.send(session.id, 'read n.txt', { onToken: (p) => tokens.push(p.text) }).done;
  assert.equal(out.stop, 'done');
  assert.ok(tokens.length >= 5, `streamed in pieces (${tokens.length})`);
  assert.equal(tokens.join(''), 'The file says forty two.');
  const tool = s.engine.chat.get(session.id).transcript[0]!.items[0]!;
  assert.equal(tool.kind, 'tool', JSON.stringify(tool));
  assert.equal(tool.status, 'done', JSON.stringify(tool));
  assert.match(tool.kind === 'tool' ? tool.result ?? '' : '', /42/);
});
