/** The API over real sockets: the websocket streams committed events with no gap after a reconnect, takes approvals, and refuses what it must. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { WS_MAX_FRAME } from '../../api/index.js';
import { TestSocket, listen, testApi } from '../support/api.js';
import { writeHorde } from '../support/engine.js';
import { AUTH, WS_PROTOCOLS } from '../support/token.js';
import { waitFor } from '../../testkit/wait.js';

const TOKEN = 't'.repeat(43);

async function post(base: string, url: string, body: unknown = {}): Promise<any> {
  const res = await fetch(`${base}${url}`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return res.json();
}

test('a subscriber receives every committed event of a run in order, and approves a parked step over the socket', async (t) => {
  const api = await testApi(t, { port: 0 });
  const { base, wsUrl } = await listen(api);
  const ws = await TestSocket.open(t, wsUrl);
  const hello = await ws.next((f) => f.type === 'hello');
  assert.equal(hello.gseq, 0);
  ws.send({ type: 'subscribe' });
  await ws.next((f) => f.type === 'synced');
  const { runId } = await post(base, '/api/hordes/gate/runs');
  const parked = await ws.next((f) => f.type === 'event' && f.runId === runId && f.event.type === 'approval.requested');
  assert.equal(parked.state, 'awaiting_input');
  assert.equal(fs.existsSync(api.proof), false);
  ws.send({ type: 'approve', id: 7, runId, step: 'check' });
  assert.deepEqual(await ws.next((f) => f.id === 7), { type: 'result', id: 7, ok: true, step: 'check' });
  await ws.next((f) => f.type === 'event' && f.runId === runId && f.state === 'succeeded');
  const got = ws.frames.filter((f) => f.type === 'event');
  const stored = api.engine.events(runId);
  assert.deepEqual(got.map((f) => [f.gseq, f.seq, f.event]), stored.map((s) => [s.gseq, s.seq, s.event]), 'exactly the committed events, in order');
  // Each frame carries the state right after its own event, also inside one commit:
  // `first` finishing leaves the run running; only asking for approval parks it.
  const states = got.map((f) => `${f.event.type}${f.event.step === undefined ? '' : `:${f.event.step}`} → ${f.state}`);
  assert.deepEqual(states.slice(0, 5), [
    'run.created → queued', 'step.started:first → running', 'step.finished:first → running', 'approval.requested:check → awaiting_input', 'approval.granted:check → running',
  ]);
  assert.equal(states[states.length - 1], 'step.finished:last → succeeded');
  assert.equal(fs.readFileSync(api.proof, 'utf8'), 'checked\n');
});

test('a client that drops mid-run resumes from its last sequence number with no gap and no duplicate', async (t) => {
  const api = await testApi(t, { port: 0 });
  const { base, wsUrl } = await listen(api);
  const { runId } = await post(base, '/api/hordes/gate/runs');
  await api.engine.waitForRun(runId);
  const first = await TestSocket.open(t, wsUrl);
  first.send({ type: 'subscribe', runId });
  const synced = await first.next((f) => f.type === 'synced');
  assert.equal(synced.state, 'awaiting_input');
  const seen = first.frames.filter((f) => f.type === 'event');
  assert.deepEqual(seen.map((f) => f.seq), [1, 2, 3, 4]);
  assert.ok(seen.every((f) => f.state === null), 'backlog frames carry no state');
  first.ws.terminate();
  await first.closed;

  // While nobody listens, the run goes on: approved over HTTP, it runs to the end.
  await post(base, `/api/runs/${runId}/approve`, { step: 'check' });
  assert.equal(await api.engine.waitForRun(runId), 'succeeded');

  const second = await TestSocket.open(t, wsUrl);
  second.send({ type: 'subscribe', runId, after: seen[seen.length - 1].seq });
  const again = await second.next((f) => f.type === 'synced');
  assert.equal(again.state, 'succeeded');
  const rest = second.frames.filter((f) => f.type === 'event');
  const all = [...seen, ...rest].map((f) => f.seq);
  assert.deepEqual(all, api.engine.events(runId).map((s) => s.seq), 'every event exactly once');
  assert.ok(rest.length >= 4, `the rest arrived (${rest.length})`);

  // The all-runs subscription resumes by global sequence the same way.
  const third = await TestSocket.open(t, wsUrl);
  third.send({ type: 'subscribe', after: 3 });
  await third.next((f) => f.type === 'synced');
  assert.deepEqual(third.frames.filter((f) => f.type === 'event').map((f) => f.gseq), api.engine.eventsSince(3).map((s) => s.gseq));
});

test('bad frames and refused actions answer with a coded error; an oversize frame closes the socket', async (t) => {
  const api = await testApi(t, { port: 0 });
  const { wsUrl } = await listen(api);
  const ws = await TestSocket.open(t, wsUrl);
  ws.ws.send('not json');
  assert.equal((await ws.next((f) => f.type === 'error')).error.code, 'KW_ERR_BAD_REQUEST');
  ws.send({ type: 'approve', id: 'a', runId: 'rnothere' });
  assert.equal((await ws.next((f) => f.id === 'a')).error.code, 'KW_ERR_RUN_NOT_FOUND');
  ws.send({ type: 'deny', id: 'b', runId: 'rnothere' });
  assert.match((await ws.next((f) => f.id === 'b')).error.message, /deny needs a reason/);
  ws.send({ type: 'subscribe', id: 'c', runId: 'rnothere' });
  assert.equal((await ws.next((f) => f.id === 'c')).error.code, 'KW_ERR_RUN_NOT_FOUND');
  ws.send({ type: 'dance', id: 'd' });
  assert.match((await ws.next((f) => f.id === 'd')).error.message, /unknown frame type "dance"/);
  ws.ws.send(JSON.stringify({ type: 'subscribe', pad: 'x'.repeat(WS_MAX_FRAME) }));
  assert.equal((await ws.closed).code, 1009, 'message too big');
});

test('a websocket from another site is refused (cross-site websocket hijacking)', async (t) => {
  const api = await testApi(t, { port: 0 });
  const { port, wsUrl } = await listen(api);
  await assert.rejects(TestSocket.open(t, wsUrl, ['kowalski'], { origin: 'http://evil.example' }), (err: any) => err.status === 403 && /KW_ERR_FORBIDDEN_ORIGIN/.test(err.body));
  await assert.rejects(TestSocket.open(t, wsUrl, ['kowalski'], { headers: { host: `evil.example:${port}` } }), (err: any) => err.status === 403 && /KW_ERR_FORBIDDEN_HOST/.test(err.body));
  const own = await TestSocket.open(t, wsUrl, WS_PROTOCOLS, { origin: `http://127.0.0.1:${port}` });
  assert.equal((await own.next((f) => f.type === 'hello')).type, 'hello');
});

test('bound beyond loopback, the websocket needs the token, as a header or as a subprotocol the server never echoes', async (t) => {
  const api = await testApi(t, { host: '0.0.0.0', token: TOKEN, port: 0 });
  const { port } = await listen(api, '0.0.0.0');
  const url = `ws://127.0.0.1:${port}/api/ws`;
  await assert.rejects(TestSocket.open(t, url), (err: any) => err.status === 401 && /KW_ERR_UNAUTHORIZED/.test(err.body));
  await assert.rejects(TestSocket.open(t, url, ['kowalski', `bearer.${'x'.repeat(43)}`]), (err: any) => err.status === 401);
  const browser = await TestSocket.open(t, url, ['kowalski', `bearer.${TOKEN}`], { origin: `http://127.0.0.1:${port}` });
  assert.equal(browser.ws.protocol, 'kowalski');
  await browser.next((f) => f.type === 'hello');
  const cli = await TestSocket.open(t, url, ['kowalski'], { headers: { authorization: `Bearer ${TOKEN}` } });
  await cli.next((f) => f.type === 'hello');
  const res = await fetch(`http://127.0.0.1:${port}/api/runs`, { headers: AUTH });
  assert.equal(res.status, 401);
});

test('a client that stops reading is disconnected once its buffer passes the cap; the others keep receiving; then a full collection frees what waited for it', async (t) => {
  let collections = 0;
  const api = await testApi(t, { wsMaxBuffered: 256 * 1024, port: 0, memoryRelief: { gc: () => void (collections += 1), quietMs: 50, watchMs: 0 } });
  // A horde whose snapshot (sent in every run.created) is large, so the stream outgrows the kernel's buffers quickly.
  writeHorde(path.join(api.home, 'hordes', 'wide'), `id = "wide"\npipeline = ["a"]\ndescription = "${'w'.repeat(200_000)}"`, { a: 'kind = "noop"' });
  const { base, wsUrl } = await listen(api);
  const slow = await TestSocket.open(t, wsUrl);
  const fast = await TestSocket.open(t, wsUrl);
  for (const ws of [slow, fast]) {
    ws.send({ type: 'subscribe' });
    await ws.next((f) => f.type === 'synced');
  }
  (slow.ws as unknown as { _socket: { pause(): void } })._socket.pause();
  let closed: { code: number } | undefined;
  void slow.closed.then((c) => (closed = c));
  const runs: string[] = [];
  for (let i = 0; i < 200 && api.hub.clients === 2; i++) runs.push((await post(base, '/api/hordes/wide/runs')).runId);
  assert.equal(api.hub.clients, 1, `the slow client was dropped after ${runs.length} runs`);
  (slow.ws as unknown as { _socket: { resume(): void } })._socket.resume();
  // 4008 when the client drains its backlog and reads the close frame in time; 1006 when the server had to cut it off.
  const code = (await slow.closed).code;
  assert.ok(code === 4008 || code === 1006, `closed with ${code}`);
  assert.equal(closed?.code, code);
  const last = runs[runs.length - 1];
  await fast.next((f) => f.type === 'event' && f.runId === last && f.seq === 1);
  await waitFor(() => collections === 1, 'the collection once the dropped client is gone');
});

test('a client that watches a topic is sent `changed` when it changes, a burst as one frame now and one at its end; others hear nothing', async (t) => {
  const api = await testApi(t, { port: 0 });
  const { base, wsUrl } = await listen(api);
  const watcher = await TestSocket.open(t, wsUrl);
  const other = await TestSocket.open(t, wsUrl);
  await Promise.all([watcher.next((f) => f.type === 'hello'), other.next((f) => f.type === 'hello')]);
  watcher.send({ type: 'watch', id: 'w', topics: ['agents', 'nope'] });
  assert.match((await watcher.next((f) => f.id === 'w')).error.message, /watch needs topics: a list of agents, adapters, plugins/);
  watcher.send({ type: 'watch', topics: ['agents', 'plugins'] });

  // Saved over HTTP: the watcher hears of it.
  const profile = (name: string): string => `---\nname = "${name}"\ndescription = "the ${name}"\ntools = []\n---\nYou are ${name}.\n`;
  const res = await fetch(`${base}/api/agents/critic`, { method: 'PUT', headers: { ...AUTH, 'content-type': 'application/json' }, body: JSON.stringify({ text: profile('critic') }) });
  assert.equal(res.status, 200);
  assert.deepEqual(await watcher.next((f) => f.type === 'changed'), { type: 'changed', topic: 'agents' });

  // Three changes in one tick: at most one frame now and one once CHANGED_GAP_MS has passed since the last, never one each.
  const agentsFrames = (): number => watcher.frames.filter((f) => f.type === 'changed' && f.topic === 'agents').length;
  for (const name of ['one', 'two', 'three']) api.engine.team.save(name, profile(name));
  const burstAt = watcher.frames.length;
  await watcher.next((f) => f.type === 'changed' && f.topic === 'agents', burstAt);
  // A frame of another topic sent well after them: whatever the burst sent came before it.
  await waitFor(async () => {
    await post(base, '/api/plugins/rescan');
    return watcher.frames.slice(burstAt).some((f) => f.type === 'changed' && f.topic === 'plugins');
  }, 'a plugins frame');
  const burst = watcher.frames.slice(burstAt).filter((f) => f.type === 'changed' && f.topic === 'agents').length;
  assert.ok(burst >= 1 && burst <= 2, `the burst of 3 sent ${burst} frame(s)`);
  assert.ok(agentsFrames() <= 3);
  assert.deepEqual(other.frames.filter((f) => f.type === 'changed'), [], 'a client that watches nothing hears nothing');
});
