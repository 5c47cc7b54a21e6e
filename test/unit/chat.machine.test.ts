/** The chat machine's rules: what each state accepts, the budget as a guard, replay from a log, and what a budget grant opens again. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ROOT_NODE, budgetLeft, foldChat } from '../../actors/index.js';
import type { ChatEvent, ProfileSnapshot , ChatActor} from '../../actors/index.js';

const boss: ProfileSnapshot = { name: 'boss', model: 'ollama:m', tools: ['delegate_to_agent'], prompt: 'You are boss.' };
const helper: ProfileSnapshot = { name: 'helper', model: 'ollama:m', tools: [], prompt: 'You are helper.' };
const created: Extract<ChatEvent, { type: 'session.created' }> = { type: 'session.created', agent: 'boss', title: '', by: 'test' };
const usage = { inputTokens: 1, outputTokens: 1 };
const answer = (content: string, toolCalls: { id: string; name: string; arguments: Record<string, unknown> }[] = []) => ({
  content, toolCalls, stopReason: toolCalls.length > 0 ? 'tool_calls' as const : 'end' as const, usage, costUsd: 0, latencyMs: 1, attempts: 1,
});
const done = { calls: 0, toolCalls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 };

function session(...events: ChatEvent[]): ChatActor {
  const folded = foldChat('c1', [created, ...events]);
  assert.ok(folded.ok, folded.ok ? '' : folded.reason);
  return folded.actor;
}

test('a turn opens, every model call takes one of its budget, and a call past it is refused', () => {
  const a = session({ type: 'turn.started', turn: 1, text: 'hi', agent: boss, budget: 2, by: 't' });
  assert.equal(a.state, 'running');
  assert.ok(a.send({ type: 'model.started', turn: 1, node: ROOT_NODE, seq: 1 }).ok);
  assert.equal(budgetLeft(a.context), 1);
  // The same call cannot be counted twice, and an answer needs a started call.
  assert.equal(a.send({ type: 'model.started', turn: 1, node: ROOT_NODE, seq: 1 }).ok, false);
  assert.equal(a.send({ type: 'model.finished', turn: 1, node: ROOT_NODE, seq: 2, response: answer('x') }).ok, false);
  assert.ok(a.send({ type: 'model.finished', turn: 1, node: ROOT_NODE, seq: 1, response: answer('', [{ id: 'c', name: 'delegate_to_agent', arguments: {} }]) }).ok);
  assert.ok(a.send({ type: 'tool.started', turn: 1, node: ROOT_NODE, seq: 1, index: 0, name: 'delegate_to_agent', arguments: {}, idempotent: true }).ok);
  assert.ok(a.send({ type: 'delegation.started', turn: 1, node: 'r/1.0', parent: ROOT_NODE, agent: helper, task: 't' }).ok);
  assert.ok(a.send({ type: 'model.started', turn: 1, node: 'r/1.0', seq: 1 }).ok);
  assert.equal(budgetLeft(a.context), 0);
  const refused = a.send({ type: 'model.started', turn: 1, node: ROOT_NODE, seq: 2 });
  assert.equal(refused.ok, false);
  assert.match(refused.ok ? '' : refused.reason, /model\.started is not accepted while the session is running/);
  // A new message is refused while the turn runs.
  assert.equal(a.send({ type: 'turn.started', turn: 2, text: 'again', agent: boss, budget: 5, by: 't' }).ok, false);
});

test('a turn stopped by its budget parks the session; more budget opens the same turn, a new message leaves it', () => {
  const stopped = (): ChatActor => session(
    { type: 'turn.started', turn: 1, text: 'hi', agent: boss, budget: 1, by: 't' },
    { type: 'model.started', turn: 1, node: ROOT_NODE, seq: 1 },
    { type: 'model.finished', turn: 1, node: ROOT_NODE, seq: 1, response: answer('', [{ id: 'c', name: 'x', arguments: {} }]) },
    { type: 'turn.finished', turn: 1, text: 'out of budget', stop: 'budget_exhausted', usage: done },
  );
  const a = stopped();
  assert.equal(a.state, 'exhausted');
  assert.equal(a.send({ type: 'budget.granted', turn: 1, extra: 0, by: 't' }).ok, false, 'nothing granted is no grant');
  assert.equal(a.send({ type: 'budget.granted', turn: 2, extra: 3, by: 't' }).ok, false);
  assert.ok(a.send({ type: 'budget.granted', turn: 1, extra: 3, by: 't' }).ok);
  assert.equal(a.state, 'running');
  assert.deepEqual(a.context.current?.budget, { limit: 4, used: 1 });
  assert.equal(a.context.current?.ended, undefined);
  // The recorded call is still there to replay; the next one may be made.
  assert.ok(a.context.current?.calls['r:1']?.response !== undefined);
  assert.ok(a.send({ type: 'model.started', turn: 1, node: ROOT_NODE, seq: 2 }).ok);
  assert.ok(a.send({ type: 'model.finished', turn: 1, node: ROOT_NODE, seq: 2, response: answer('hello') }).ok);
  assert.ok(a.send({ type: 'turn.finished', turn: 1, text: 'hello', stop: 'done', usage: done }).ok);
  assert.equal(a.state, 'idle');
  assert.deepEqual(a.context.history.map((h) => [h.turn, h.assistant, h.stop]), [[1, 'hello', 'done']], 'the stopped exchange is replaced by the finished one');
  assert.equal(a.send({ type: 'budget.granted', turn: 1, extra: 3, by: 't' }).ok, false, 'only a stopped turn can be given more');

  const b = stopped();
  assert.ok(b.send({ type: 'turn.started', turn: 2, text: 'next', agent: boss, budget: 5, by: 't' }).ok);
  assert.deepEqual(b.context.history.map((h) => h.stop), ['budget_exhausted']);
  assert.equal(b.context.current?.turn, 2);
});

test('tool results and delegations need their start; a log that breaks a rule does not fold', () => {
  const a = session({ type: 'turn.started', turn: 1, text: 'hi', agent: boss, budget: 5, by: 't' });
  assert.equal(a.send({ type: 'tool.started', turn: 1, node: ROOT_NODE, seq: 1, index: 0, name: 'x', arguments: {}, idempotent: false }).ok, false, 'no tool before the model asked');
  assert.equal(a.send({ type: 'tool.finished', turn: 1, node: ROOT_NODE, seq: 1, index: 0, result: '' }).ok, false);
  assert.equal(a.send({ type: 'delegation.started', turn: 1, node: 'x/1.0', parent: 'x', agent: helper, task: 't' }).ok, false, 'the parent must be in the tree');
  assert.equal(a.send({ type: 'delegation.finished', turn: 1, node: ROOT_NODE, text: '' }).ok, false, 'the root ends with the turn');
  const broken = foldChat('c1', [created, { type: 'model.started', turn: 1, node: ROOT_NODE, seq: 1 }]);
  assert.equal(broken.ok, false);
  assert.equal(foldChat('c1', []).ok, false);
  // Totals count every call of the session, across turns.
  const b = session(
    { type: 'turn.started', turn: 1, text: 'hi', agent: boss, budget: 5, by: 't' },
    { type: 'model.started', turn: 1, node: ROOT_NODE, seq: 1 },
    { type: 'model.finished', turn: 1, node: ROOT_NODE, seq: 1, response: answer('a') },
    { type: 'turn.finished', turn: 1, text: 'a', stop: 'done', usage: done },
    { type: 'turn.started', turn: 2, text: 'again', agent: boss, budget: 5, by: 't' },
    { type: 'model.started', turn: 2, node: ROOT_NODE, seq: 1 },
    { type: 'model.failed', turn: 2, node: ROOT_NODE, seq: 1, error: { code: 'KW_ERR_MODEL_SERVER', message: '500' } },
    { type: 'turn.finished', turn: 2, text: '', stop: 'error', usage: done, error: { code: 'KW_ERR_MODEL_SERVER', message: '500' } },
  );
  assert.deepEqual(b.context.totals, { calls: 2, inputTokens: 1, outputTokens: 1 });
  assert.equal(b.state, 'idle');
});
