/**
 * Memory tiers of chat agents, through the engine and a scripted fake Ollama: a long
 * conversation folded into a running summary (one traced model call, recorded, never made
 * again after a restart), `recall` finding an earlier session, `remember` writing a note
 * under memory/ with its audit row, and the memories given before a turn in a marked block
 * that the log and the trace both show. The vault is the engine's own (engine.vault): its audit rows are read back.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { createEngine, MEMORY_TRACE_STEP } from '../../engine/index.js';
import { chatSetup, profile } from '../../testkit/chat.js';
import type { FakeTurn } from '../../testkit/fake-models.js';
import type { SearchAnswer, VaultIndex } from '../../engine/index.js';
import { cleanups } from '../../testkit/cleanup.js';
import { testOwnCode } from '../../testkit/dist.js';

const isSummaryCall = (body: any): boolean => String(body?.messages?.[0]?.content ?? '').startsWith('You keep the running summary');
const chatCalls = (requests: Array<{ path: string; body: any }>): any[] => requests.filter((r) => r.path === '/api/chat').map((r) => r.body);
const lastUser = (body: any): string => String([...body.messages].reverse().find((m: any) => m.role === 'user')?.content ?? '');
/** 50 tokens by the estimate (200 characters), tagged. */
const long = (tag: string): string => `${tag} ${'x'.repeat(200 - tag.length - 1)}`;

/** An index that records what it is asked and answers nothing, or fails. */
function watchedIndex(fail: boolean): VaultIndex & { searches: string[] } {
  const searches: string[] = [];
  return {
    searches,
    noteChanged: () => undefined,
    search: (query): Promise<SearchAnswer> => {
      searches.push(query);
      return fail ? Promise.reject(Object.assign(new Error('the index is down'), { code: 'KW_ERR_TOOL_FAILED' })) : Promise.resolve({ query, mode: 'keyword', hits: [] });
    },
  };
}

test('a long conversation is folded into a summary, not cut: the model sees the summary and the recent turns; the summary call is traced and never made again after a restart', async (t) => {
  let hang = false;
  const script = (body: any): FakeTurn => {
    if (isSummaryCall(body)) return { text: 'SUMMARY: the user spoke of turn-one and turn-two.', usage: { input: 40, output: 9 } };
    if (hang) return { hang: true };
    return { text: long(`answer-to-${lastUser(body).split(' ')[0]}`) };
  };
  const team = { talker: profile('talker', 'tools = []\nmemory_window_tokens = 200\nmemories = 0') };
  const s = await chatSetup(t, script, team);
  const id = s.engine.chat.create({ agent: 'talker' }).id;
  for (const tag of ['turn-one', 'turn-two', 'turn-three']) assert.equal((await s.engine.chat.send(id, long(tag)).done).stop, 'done');
  // Turns 1–3 hold 300 tokens > 200: before turn 4, turns 1 and 2 are folded and turn 3 (100 tokens, half the window) is kept.
  assert.equal(chatCalls(s.server.requests).filter(isSummaryCall).length, 0, 'no summary while the earlier turns fit');
  hang = true;
  const sent = s.engine.chat.send(id, long('turn-four'));
  await waitFor(() => chatCalls(s.server.requests).filter((b) => !isSummaryCall(b)).length === 4);

  const folds = chatCalls(s.server.requests).filter(isSummaryCall);
  assert.equal(folds.length, 1);
  assert.match(folds[0].messages[1].content, /Turn 1\nUser: turn-one[\s\S]*Turn 2\nUser: turn-two/);
  assert.doesNotMatch(folds[0].messages[1].content, /turn-three/);
  const turnFour = chatCalls(s.server.requests).filter((b) => !isSummaryCall(b)).at(-1);
  const roles = turnFour.messages.map((m: any) => m.role);
  assert.deepEqual(roles, ['system', 'system', 'user', 'assistant', 'user']);
  assert.equal(turnFour.messages[1].content, 'Summary of the earlier conversation (turns 1–2): SUMMARY: the user spoke of turn-one and turn-two.');
  assert.match(turnFour.messages[2].content, /^turn-three/);
  assert.match(turnFour.messages[3].content, /^answer-to-turn-three/);
  assert.ok(!JSON.stringify(turnFour.messages).includes('turn-one x'), 'folded turns are not given whole');

  const log = s.engine.chat.events(id).map((e) => e.event);
  const summarized = log.filter((e) => e.type === 'memory.summarized');
  assert.deepEqual(summarized, [{ type: 'memory.summarized', turn: 4, through: 2, text: 'SUMMARY: the user spoke of turn-one and turn-two.', usage: { inputTokens: 40, outputTokens: 9 } }]);
  assert.deepEqual(s.engine.chat.get(id).transcript[3]!.summary, { through: 2, text: 'SUMMARY: the user spoke of turn-one and turn-two.' });
  const traces = s.engine.listTraces({ sessionId: id, limit: 20 }).filter((tr) => tr.step === MEMORY_TRACE_STEP);
  assert.equal(traces.length, 1);
  assert.deepEqual([traces[0]!.agent, traces[0]!.attempt, traces[0]!.inputTokens, traces[0]!.outputTokens], ['talker', 4, 40, 9]);
  assert.match(s.engine.getTrace(traces[0]!.id).messages[1]!.content, /turn-two/);
  // Its tokens count in the session's usage, not in the turn's budget.
  assert.equal(s.engine.chat.summary(id).usage.calls, 5);
  assert.equal(s.engine.chat.summary(id).budget.used, 1);

  // The engine stops while turn 4's model call hangs; the next engine goes on with the turn and does not summarise again.
  await s.engine.close();
  await assert.rejects(sent.done);
  hang = false;
  const again = await createEngine({ ownCode: testOwnCode(), dataDir: s.home });
  cleanups(t)(() => again.close());
  assert.deepEqual(again.chat.recover(), [id]);
  const out = await again.chat.turnUnderWay(id)!;
  assert.equal(out.stop, 'done');
  assert.equal(chatCalls(s.server.requests).filter(isSummaryCall).length, 1, 'the summary was taken from the log');
  const resumed = chatCalls(s.server.requests).at(-1);
  assert.equal(resumed.messages[1].content, turnFour.messages[1].content);
});

test('recall finds a turn of an earlier session (with its session, title, turn, agent and the matched words), never the session asking', async (t) => {
  const s = await chatSetup(t, (body: any): FakeTurn => {
    const tools = body.messages.filter((m: any) => m.role === 'tool');
    if (lastUser(body).startsWith('what did we')) {
      return tools.length === 0 ? { toolCalls: [{ name: 'recall', arguments: { query: 'kiwi "tart* NEAR(' } }] } : { text: `found: ${tools[0].content}` };
    }
    return { text: lastUser(body).includes('kiwi') ? 'Kiwi tarts need ripe kiwis and a short crust.' : 'Plums are in season.' };
  }, { cook: profile('cook', 'tools = ["recall"]\nmemories = 0') });
  const first = s.engine.chat.create({ agent: 'cook', title: 'Baking' });
  await s.engine.chat.send(first.id, 'How do I bake kiwi tarts?').done;
  const other = s.engine.chat.create({ agent: 'cook' });
  await s.engine.chat.send(other.id, 'Something about plums').done;

  const asking = s.engine.chat.create({ agent: 'cook' });
  const out = await s.engine.chat.send(asking.id, 'what did we say about kiwi tarts? kiwi').done;
  assert.equal(out.stop, 'done');
  const result = s.engine.chat.events(asking.id).map((e) => e.event).find((e) => e.type === 'tool.finished');
  assert.ok(result?.type === 'tool.finished');
  const lines = result.result.split('\n');
  assert.equal(lines.length, 1, 'only the kiwi turn of the first session; not the asking one (which mentions kiwi too)');
  assert.match(lines[0]!, new RegExp(`^- session ${first.id} "Baking", turn 1, \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d UTC, cook: .*\\[kiwi`, 'i'));
  assert.deepEqual(result.meta, { hits: [{ sessionId: first.id, turn: 1 }] });
});

test('remember writes a note under memory/ with an audit row naming the session, agent, model call and call key; the next session is given it in a marked block, and the log and the trace show which', async (t) => {
  const s = await chatSetup(t, (body: any): FakeTurn => {
    const tools = body.messages.filter((m: any) => m.role === 'tool');
    if (lastUser(body).startsWith('I only drink')) {
      return tools.length === 0 ? { toolCalls: [{ name: 'remember', arguments: { fact: 'The user only drinks green tea, never coffee.' } }] } : { text: 'Noted.' };
    }
    return { text: 'Green tea, then.' };
  }, { host: profile('host', 'tools = ["remember"]') });
  const one = s.engine.chat.create({ agent: 'host' });
  const out = await s.engine.chat.send(one.id, 'I only drink green tea.').done;
  assert.equal(out.stop, 'done');
  const day = new Date().toISOString().slice(0, 10);
  const note = `memory/${day}-the-user-only-drinks-green-tea-never-coffee.md`;
  assert.equal(fs.readFileSync(path.join(s.home, 'vault', ...note.split('/')), 'utf8'), '# The user only drinks green tea, never coffee.\n\nThe user only drinks green tea, never coffee.\n');
  const writes = s.engine.vault.writes({});
  assert.equal(writes.length, 1);
  const w = writes[0]!;
  const rememberTrace = s.engine.listTraces({ sessionId: one.id, limit: 10 }).find((tr) => tr.seq === 1)!;
  assert.deepEqual([w.op, w.path, w.sessionId, w.agent, w.traceId, w.by, w.state], ['create', note, one.id, 'host', rememberTrace.id, 'agent', 'done']);
  const db = new Database(path.join(s.home, 'kowalski.sqlite'), { readonly: true });
  cleanups(t)(() => db.close());
  assert.equal(db.prepare('SELECT call_key FROM note_writes WHERE write_id = ?').pluck().get(w.writeId), `${one.id}:1:r:1.0`);

  const two = s.engine.chat.create({ agent: 'host' });
  await s.engine.chat.send(two.id, 'Which tea should I buy?').done;
  const recalled = s.engine.chat.events(two.id).map((e) => e.event).find((e) => e.type === 'memory.recalled');
  assert.deepEqual(recalled, { type: 'memory.recalled', turn: 1, memories: [{ path: note, text: 'The user only drinks green tea, never coffee.' }] });
  assert.deepEqual(s.engine.chat.get(two.id).transcript[0]!.memories, { notes: [{ path: note, text: 'The user only drinks green tea, never coffee.' }] }, 'the transcript (the Chat screen) shows them');
  const body = chatCalls(s.server.requests).at(-1);
  const block = body.messages.find((m: any) => m.role === 'system' && m.content.startsWith('<memories>'));
  assert.ok(block, 'the marked block is in the request');
  assert.match(block.content, new RegExp(`- \\(${note.replace(/[.]/g, '\\.')}\\) The user only drinks green tea, never coffee\\.\n</memories>$`));
  assert.equal(body.messages.at(-1).content, 'Which tea should I buy?', 'the block comes before the message');
  const trace = s.engine.getTrace(s.engine.listTraces({ sessionId: two.id, limit: 5 })[0]!.id);
  assert.ok(trace.messages.some((m) => m.role === 'system' && m.content === block.content), 'the trace holds the block the model saw');
});

test('when the memory search fails the turn goes on without memories, and the log says why', async (t) => {
  const s = await chatSetup(t, [{ text: 'fine' }], { host: profile('host', 'tools = []\nmemories = 2') });
  s.engine.vault.setIndex(watchedIndex(true));
  const id = s.engine.chat.create({ agent: 'host' }).id;
  const out = await s.engine.chat.send(id, 'hello there').done;
  assert.equal(out.stop, 'done');
  const recalled = s.engine.chat.events(id).map((e) => e.event).find((e) => e.type === 'memory.recalled');
  assert.deepEqual(recalled, { type: 'memory.recalled', turn: 1, memories: [], error: { code: 'KW_ERR_TOOL_FAILED', message: 'the index is down' } });
  assert.ok(!chatCalls(s.server.requests)[0].messages.some((m: any) => String(m.content).startsWith('<memories>')));
});

test('memories = 0 searches nothing and records nothing', async (t) => {
  const s = await chatSetup(t, [{ text: 'fine' }], { host: profile('host', 'tools = []\nmemories = 0') });
  const index = watchedIndex(false);
  s.engine.vault.setIndex(index);
  const id = s.engine.chat.create({ agent: 'host' }).id;
  await s.engine.chat.send(id, 'hello there').done;
  assert.deepEqual(index.searches, []);
  assert.ok(!s.engine.chat.events(id).some((e) => e.event.type === 'memory.recalled'));
});

async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('waitFor: timed out');
    await new Promise((resolve) => setImmediate(resolve));
  }
}
