/** The webhook adapter through the real API: signed deliveries answered by the agent (a fake model), refusals that record nothing, replays, the callback, and /api/adapters. */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import { test } from 'node:test';
import crypto from 'node:crypto';
import { buildApi } from '../../api/index.js';
import { signedHeaders, webhookDigest } from '../../engine/index.js';
import { adapterSetup, echoScript } from '../support/adapters.js';
import { listen } from '../support/api.js';
import { cleanups } from '../../testkit/cleanup.js';
import { waitFor } from '../../testkit/wait.js';
import { AUTH, TEST_TOKEN } from '../support/token.js';

const SECRET = 'whk-test-secret-0123456789';

async function webhookApi(t: TestContext, adapters: string) {
  const setup = await adapterSetup(t, echoScript, adapters);
  await setup.engine.adapters.start();
  const { app } = await buildApi(setup.engine, { token: TEST_TOKEN, port: 8765 });
  cleanups(t)(() => app.close());
  const call = async (method: 'GET' | 'POST', url: string, payload?: Buffer, headers: Record<string, string> = {}) => {
    const res = await app.inject({ method, url, headers: { host: '127.0.0.1:8765', ...AUTH, ...headers }, ...(payload === undefined ? {} : { payload }) });
    return { status: res.statusCode, json: JSON.parse(res.body) };
  };
  /** A delivery signed with `secret` at `nowMs`. */
  const deliver = (name: string, body: unknown, delivery: string, options: { secret?: string; nowMs?: number } = {}) => {
    const raw = Buffer.from(JSON.stringify(body));
    return call('POST', `/adapters/webhook/${name}`, raw, { 'content-type': 'application/json', ...signedHeaders(options.secret ?? SECRET, delivery, raw, options.nowMs ?? Date.now()) });
  };
  return { ...setup, call, deliver };
}

test('a signed delivery is answered with the agent\'s answer; a replay of its delivery id answers the same record with no second turn', async (t) => {
  process.env.KW_TEST_WEBHOOK_SECRET = SECRET;
  t.after(() => delete process.env.KW_TEST_WEBHOOK_SECRET);
  const { deliver, server, engine, call } = await webhookApi(t, '[adapters.hook]\ntype = "webhook"\nenabled = true\nsecret_env = "KW_TEST_WEBHOOK_SECRET"\n');
  const first = await deliver('hook', { text: 'what is two plus two', conversation: 'ops', from: 'ci' }, 'd-1');
  assert.equal(first.status, 200, JSON.stringify(first.json));
  assert.equal(first.json.text, 'echo: what is two plus two');
  assert.equal(first.json.duplicate, false);
  assert.equal(engine.chat.summary(first.json.sessionId).title, 'hook: ops');
  const replay = await deliver('hook', { text: 'what is two plus two', conversation: 'ops' }, 'd-1');
  assert.equal(replay.status, 200);
  assert.deepEqual([replay.json.record, replay.json.text, replay.json.duplicate], [first.json.record, first.json.text, true]);
  assert.equal(server.requests.length, 1, 'one turn');
  const next = await deliver('hook', { text: 'and three', conversation: 'ops' }, 'd-2');
  assert.equal(next.json.sessionId, first.json.sessionId, 'one session per conversation');

  const listed = await call('GET', '/api/adapters');
  assert.equal(listed.status, 200);
  assert.deepEqual(listed.json.adapters.map((a: any) => [a.name, a.type, a.state, a.agent, a.settings]), [['hook', 'webhook', 'running', 'assistant', { secret: '(from $KW_TEST_WEBHOOK_SECRET)' }]]);
  assert.ok(!JSON.stringify(listed.json).includes(SECRET));
});

test('a bad signature, a stale or future timestamp, no delivery id, a bad body: refused, nothing recorded', async (t) => {
  const { deliver, call, engine, server } = await webhookApi(t, `[adapters.hook]\ntype = "webhook"\nenabled = true\nsecret = "${SECRET}"\n`);
  const body = { text: 'hi' };
  const bad = await deliver('hook', body, 'x-1', { secret: 'not-the-secret' });
  assert.deepEqual([bad.status, bad.json.error.code], [401, 'KW_ERR_WEBHOOK_SIGNATURE']);
  const stale = await deliver('hook', body, 'x-1', { nowMs: Date.now() - 301_000 });
  assert.deepEqual([stale.status, stale.json.error.code], [401, 'KW_ERR_WEBHOOK_STALE']);
  assert.match(stale.json.error.message, /X-Kowalski-Timestamp is 30\d s in the past/);
  const future = await deliver('hook', body, 'x-1', { nowMs: Date.now() + 400_000 });
  assert.deepEqual([future.status, future.json.error.code], [401, 'KW_ERR_WEBHOOK_STALE']);
  const raw = Buffer.from(JSON.stringify(body));
  const headers = signedHeaders(SECRET, 'x-1', raw, Date.now());
  delete headers['x-kowalski-delivery'];
  const noId = await call('POST', '/adapters/webhook/hook', raw, { 'content-type': 'application/json', ...headers });
  assert.deepEqual([noId.status, noId.json.error.code], [401, 'KW_ERR_WEBHOOK_SIGNATURE']);
  const notJson = await deliver('hook', 'just text', 'x-2');
  assert.deepEqual([notJson.status, notJson.json.error.code], [400, 'KW_ERR_BAD_REQUEST']);
  const extra = await deliver('hook', { text: 'hi', shell: 'rm' }, 'x-3');
  assert.deepEqual([extra.status, extra.json.error.message], [400, 'body/shell is not a known field (text, conversation, from)']);
  const unknown = await deliver('nope', body, 'x-4');
  assert.deepEqual([unknown.status, unknown.json.error.code], [404, 'KW_ERR_ADAPTER_NOT_FOUND']);
  assert.equal(server.requests.length, 0, 'no turn');
  assert.equal(engine.adapters.record(1), undefined, 'nothing recorded');
  // The refused delivery ids were never taken: the genuine delivery is a new message.
  const good = await deliver('hook', body, 'x-1');
  assert.deepEqual([good.status, good.json.duplicate], [200, false]);
});

test('with callback_url: 202 at once, the answer POSTed there signed the same way; switched off, deliveries are refused', async (t) => {
  const received: Array<{ headers: http.IncomingHttpHeaders; body: Buffer }> = [];
  const callback = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.writeHead(received.length === 1 ? 503 : 204).end(); // the first try fails: tried again
    });
  });
  await new Promise<void>((resolve) => callback.listen(0, '127.0.0.1', resolve));
  cleanups(t)(() => new Promise<void>((resolve) => callback.close(() => resolve())));
  const url = `http://127.0.0.1:${(callback.address() as AddressInfo).port}/answers`;
  const { deliver, call, server } = await webhookApi(t, `[adapters.cb]\ntype = "webhook"\nenabled = true\nsecret = "${SECRET}"\ncallback_url = "${url}"\n`);
  const res = await deliver('cb', { text: 'call me back', conversation: 'k' }, 'cb-1');
  assert.equal(res.status, 202);
  assert.equal(res.json.duplicate, false);
  await waitFor(() => received.length === 2, 'the answer posted (after one failed try)');
  const sent = received[1]!;
  const answer = JSON.parse(sent.body.toString('utf8'));
  assert.deepEqual([answer.text, answer.delivery, answer.conversation, answer.record], ['echo: call me back', 'cb-1', 'k', res.json.record]);
  const ts = String(sent.headers['x-kowalski-timestamp']);
  assert.equal(sent.headers['x-kowalski-signature'], `v2=${webhookDigest(SECRET, ts, 'cb-1', sent.body).toString('hex')}`);
  assert.equal(sent.headers['x-kowalski-delivery'], 'cb-1');
  const replay = await deliver('cb', { text: 'call me back', conversation: 'k' }, 'cb-1');
  assert.deepEqual([replay.status, replay.json.duplicate, replay.json.record], [202, true, res.json.record]);
  assert.equal(server.requests.length, 1);
  assert.equal(received.length, 2, 'a replay posts nothing more');

  const off = await call('POST', '/api/adapters/cb/disable');
  assert.deepEqual([off.status, off.json.state, off.json.enabled], [200, 'stopped', false]);
  const refused = await deliver('cb', { text: 'anyone?' }, 'cb-2');
  assert.deepEqual([refused.status, refused.json.error.code], [409, 'KW_ERR_ADAPTER_DISABLED']);
  const on = await call('POST', '/api/adapters/cb/enable');
  assert.deepEqual([on.status, on.json.state], [200, 'running']);
  const missing = await call('POST', '/api/adapters/nope/enable');
  assert.deepEqual([missing.status, missing.json.error.code], [404, 'KW_ERR_ADAPTER_NOT_FOUND']);
});

test('over real HTTP: a captured delivery resent with a new delivery id is refused (the id is signed), so is the first sha256= scheme; text over 100,000 characters is a 400', async (t) => {
  const setup = await adapterSetup(t, echoScript, `[adapters.hook]\ntype = "webhook"\nenabled = true\nsecret = "${SECRET}"\n`);
  await setup.engine.adapters.start();
  const api = await buildApi(setup.engine, { token: TEST_TOKEN, port: 0 });
  cleanups(t)(() => api.app.close());
  const { base } = await listen(api);
  const post = async (raw: Buffer, headers: Record<string, string>) => {
    const res = await fetch(`${base}/adapters/webhook/hook`, { method: 'POST', body: raw, headers: { 'content-type': 'application/json', ...headers } });
    return { status: res.status, json: (await res.json()) as any };
  };
  const raw = Buffer.from(JSON.stringify({ text: 'spend a model call', conversation: 'c' }));
  const captured = signedHeaders(SECRET, 'r-1', raw, Date.now());
  assert.match(captured['x-kowalski-signature']!, /^v2=[0-9a-f]{64}$/);
  const first = await post(raw, captured);
  assert.deepEqual([first.status, first.json.duplicate], [200, false]);

  for (const id of ['r-2', 'r-3']) {
    const replay = await post(raw, { ...captured, 'x-kowalski-delivery': id });
    assert.deepEqual([replay.status, replay.json.error.code], [401, 'KW_ERR_WEBHOOK_SIGNATURE'], id);
    assert.match(replay.json.error.message, /covers X-Kowalski-Timestamp, X-Kowalski-Delivery and the body/);
  }
  const again = await post(raw, captured);
  assert.deepEqual([again.status, again.json.duplicate, again.json.record], [200, true, first.json.record]);

  const ts = captured['x-kowalski-timestamp']!;
  const legacy = `sha256=${crypto.createHmac('sha256', SECRET).update(`${ts}.`).update(raw).digest('hex')}`;
  const old = await post(raw, { ...captured, 'x-kowalski-delivery': 'r-4', 'x-kowalski-signature': legacy });
  assert.deepEqual([old.status, old.json.error.code], [401, 'KW_ERR_WEBHOOK_SIGNATURE']);
  assert.match(old.json.error.message, /sha256= \(the first scheme\) does not cover X-Kowalski-Delivery.*sign v2=/);

  const long = Buffer.from(JSON.stringify({ text: 'x'.repeat(100_001) }));
  const tooLong = await post(long, signedHeaders(SECRET, 'r-5', long, Date.now()));
  assert.deepEqual([tooLong.status, tooLong.json.error.code], [400, 'KW_ERR_BAD_REQUEST']);
  assert.match(tooLong.json.error.message, /body\/text has 100001 characters; at most 100000/);

  assert.equal(setup.server.requests.length, 1, 'one model call in all');
  assert.equal(setup.engine.adapters.record(2), undefined, 'one record in all');
});
