/**
 * Chat over the API and the websocket, on a real server with the real `ollama` client
 * talking to a scripted fake: a message is answered once committed, its answer streams
 * token by token to a follower, and is then readable from the session; a turn stopped by
 * its budget goes on after `continue`; the traces of a delegation form a tree.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildApi } from '../../api/index.js';
import { CHAT_BACKLOG_PAGE } from '../../api/ws-hub.js';
import { TestSocket, listen } from '../support/api.js';
import { chatSetup, perAgent, profile } from '../../testkit/chat.js';
import { cleanups } from '../../testkit/cleanup.js';
import { AUTH, TEST_TOKEN } from '../support/token.js';

async function call(base: string, method: string, url: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${url}`, {
    method, headers: { ...AUTH, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

const TEAM = {
  boss: profile('boss', 'tools = ["delegate_to_agent"]\nmax_iterations = 2'),
  helper: profile('helper', 'tools = []'),
};

test('a message is taken once committed, its answer streams to a follower and is then in the session; continue finishes a turn its budget stopped', async (t) => {
  const s = await chatSetup(t, perAgent({
    boss: [{ toolCalls: [{ name: 'delegate_to_agent', arguments: { agent: 'helper', task: 'count' } }] }, { text: 'Helper counted one two three.', chunkDelayMs: 5 }],
    helper: [{ text: 'one two three', chunkDelayMs: 5 }],
  }), TEAM);
  const api = await buildApi(s.engine, { token: TEST_TOKEN, port: 0 });
  cleanups(t)(() => api.app.close());
  const { base, wsUrl } = await listen(api);

  const bad = await call(base, 'POST', '/api/chat/sessions', { agent: 'nobody' });
  assert.equal(bad.status, 404);
  assert.equal(bad.json.error.code, 'KW_ERR_AGENT_NOT_FOUND');

  const created = await call(base, 'POST', '/api/chat/sessions', { agent: 'boss' });
  assert.equal(created.status, 201);
  const id: string = created.json.id;
  assert.equal(created.json.state, 'idle');

  const ws = await TestSocket.open(t, wsUrl);
  await ws.next((f) => f.type === 'hello');
  ws.send({ type: 'chat-follow', sessionId: id, after: created.json.lastSeq });
  await ws.next((f) => f.type === 'chat-synced');

  const sent = await call(base, 'POST', `/api/chat/sessions/${id}/messages`, { text: 'count to three' });
  assert.equal(sent.status, 202);
  assert.deepEqual(sent.json, { sessionId: id, turn: 1 });
  // Committed before the answer: the session says so at once.
  const busy = await call(base, 'POST', `/api/chat/sessions/${id}/messages`, { text: 'again' });
  assert.equal(busy.status, 409);
  assert.equal(busy.json.error.code, 'KW_ERR_CHAT_BUSY');

  // The budget of 2 runs out before boss can answer: the stop comes typed, over the socket.
  const stopped = await ws.next((f) => f.type === 'chat-event' && f.event.type === 'turn.finished');
  assert.equal(stopped.event.stop, 'budget_exhausted');
  assert.equal(stopped.state, 'exhausted');
  const helperTokens = ws.frames.filter((f) => f.type === 'chat-token' && f.agent === 'helper').map((f) => f.text);
  assert.equal(helperTokens.join(''), 'one two three');
  assert.ok(helperTokens.length >= 3);

  const more = await call(base, 'POST', `/api/chat/sessions/${id}/continue`, { extraIterations: 3 });
  assert.equal(more.status, 202);
  const done = await ws.next((f) => f.type === 'chat-event' && f.event.type === 'turn.finished' && f.event.stop === 'done');
  assert.equal(done.event.text, 'Helper counted one two three.');
  const bossTokens = ws.frames.filter((f) => f.type === 'chat-token' && f.agent === 'boss').map((f) => f.text).join('');
  assert.equal(bossTokens, 'Helper counted one two three.');

  // Every event once, in order, with no gap.
  const seqs = ws.frames.filter((f) => f.type === 'chat-event').map((f) => f.seq);
  assert.deepEqual(seqs, seqs.map((_, i) => created.json.lastSeq + 1 + i));

  const view = await call(base, 'GET', `/api/chat/sessions/${id}`);
  assert.equal(view.status, 200);
  assert.equal(view.json.state, 'idle');
  assert.equal(view.json.transcript.length, 1);
  assert.equal(view.json.transcript[0].answer.text, 'Helper counted one two three.');
  assert.deepEqual(view.json.transcript[0].budget, { limit: 5, used: 3 });
  assert.equal(view.json.transcript[0].items[0].kind, 'delegation');

  const list = await call(base, 'GET', '/api/chat/sessions');
  assert.deepEqual(list.json.sessions.map((x: any) => [x.id, x.title, x.turns]), [[id, 'count to three', 1]]);

  const again = await call(base, 'POST', `/api/chat/sessions/${id}/continue`, {});
  assert.equal(again.status, 409);
  assert.equal(again.json.error.code, 'KW_ERR_CHAT_NOT_STOPPED');

  // The trace tree: the root's first call delegated to helper.
  const traces = await call(base, 'GET', `/api/traces?session=${id}`);
  const first = traces.json.traces.find((x: any) => x.step === 'r' && x.seq === 1);
  const children = await call(base, 'GET', `/api/traces/${first.id}/children`);
  assert.deepEqual(children.json.traces.map((x: any) => [x.agent, x.parentId, x.sessionId]), [['helper', first.id, id]]);
  assert.equal((await call(base, 'GET', '/api/traces/999999/children')).status, 404);
  assert.equal((await call(base, 'GET', '/api/chat/sessions/cnope')).status, 404);
});

test('chat-follow sends a long log a page at a time: every event once, in order, and frames sent meanwhile are answered between pages', async (t) => {
  const calls = 2 * CHAT_BACKLOG_PAGE;
  const s = await chatSetup(t, perAgent({
    lister: [{ toolCalls: Array.from({ length: calls }, () => ({ name: 'list_notes', arguments: {} })) }, { text: 'Listed.' }],
  }), { lister: profile('lister', 'tools = ["list_notes"]') });
  const session = s.engine.chat.create({ agent: 'lister' });
  assert.equal((await s.engine.chat.send(session.id, 'list them all').done).stop, 'done');
  const total = s.engine.chat.events(session.id).length;
  assert.ok(total > 4 * CHAT_BACKLOG_PAGE, `${total} events`);
  const api = await buildApi(s.engine, { token: TEST_TOKEN, port: 0 });
  cleanups(t)(() => api.app.close());
  const { wsUrl } = await listen(api);

  const ws = await TestSocket.open(t, wsUrl);
  await ws.next((f) => f.type === 'hello');
  ws.send({ type: 'chat-follow', sessionId: session.id, after: 0 });
  ws.send({ type: 'subscribe' });
  const synced = await ws.next((f) => f.type === 'chat-synced');
  assert.equal(synced.seq, total);
  const seqs = ws.frames.filter((f) => f.type === 'chat-event').map((f) => f.seq);
  assert.deepEqual(seqs, Array.from({ length: total }, (_, i) => i + 1));
  // The subscribe sent after the chat-follow was answered while the log was still being sent (it used to come after all of it).
  const runsSynced = ws.frames.findIndex((f) => f.type === 'synced');
  assert.ok(runsSynced > 0 && runsSynced < ws.frames.indexOf(synced), `synced at ${runsSynced}, chat-synced at ${ws.frames.indexOf(synced)}`);
  assert.ok(ws.frames.slice(runsSynced).filter((f) => f.type === 'chat-event').length >= CHAT_BACKLOG_PAGE, 'pages went out after it');

  // Following again from the middle: the rest only; an unknown session is an error frame.
  ws.send({ type: 'chat-follow', sessionId: session.id, after: total - 3 });
  const from = ws.frames.length;
  const again = await ws.next((f) => f.type === 'chat-synced', from);
  assert.deepEqual(ws.frames.slice(from).filter((f) => f.type === 'chat-event').map((f) => f.seq), [total - 2, total - 1, total]);
  assert.equal(again.seq, total);
  ws.send({ type: 'chat-follow', sessionId: 'cnothere', id: 7 });
  assert.equal((await ws.next((f) => f.type === 'error' && f.id === 7)).error.code, 'KW_ERR_CHAT_NOT_FOUND');
});
