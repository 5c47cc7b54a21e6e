/**
 * The Discord adapter end to end: a real engine and API, the scripted fake model, a fake
 * Discord API on 127.0.0.1, and an application key pair made here. Any signature failure
 * is 401 with nothing recorded; PING is answered PONG; a command is answered "deferred" at
 * once, and the agent's answer then edits that response; a bad public key keeps the
 * adapter from running.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { buildApi } from '../../api/index.js';
import type { Engine } from '../../engine/index.js';
import { adapterSetup } from '../support/adapters.js';
import { cleanups } from '../../testkit/cleanup.js';
import { discordKeys, fakeDiscordApi } from '../../testkit/fake-chat-apis.js';
import type { FakeChatApi } from '../../testkit/fake-chat-apis.js';
import type { FakeModelServer, FakeScript } from '../../testkit/fake-models.js';
import { waitFor } from '../../testkit/wait.js';
import { TEST_TOKEN } from '../support/token.js';

const APP_ID = '123456789012345678';
const PATH = '/adapters/discord/interactions';

interface DiscordSetup {
  engine: Engine;
  model: FakeModelServer;
  discord: FakeChatApi;
  post(body: string, headers: Record<string, string>): Promise<{ status: number; json: any }>;
  /** Signed now by the application's key. */
  send(body: unknown): Promise<{ status: number; json: any }>;
  sign(body: string, nowSecs: number): Record<string, string>;
}

async function discordSetup(t: TestContext, script: FakeScript, publicKey?: string): Promise<DiscordSetup> {
  const discord = await fakeDiscordApi(cleanups(t));
  const keys = discordKeys();
  const s = await adapterSetup(t, script, `[adapters.discord]\nenabled = true\npublic_key = "${publicKey ?? keys.publicHex}"\napplication_id = "${APP_ID}"\napi_url = "${discord.url}"\n`);
  await s.engine.adapters.start();
  const api = await buildApi(s.engine, { token: TEST_TOKEN, port: 8765, onInternalError: (err) => t.diagnostic(`internal: ${String(err)}`) });
  cleanups(t)(() => api.app.close());
  const post = async (body: string, headers: Record<string, string>): Promise<{ status: number; json: any }> => {
    const res = await api.app.inject({ method: 'POST', url: PATH, headers: { host: '127.0.0.1:8765', ...headers }, payload: body });
    return { status: res.statusCode, json: res.body === '' ? undefined : JSON.parse(res.body) };
  };
  return {
    engine: s.engine, model: s.server, discord, post, sign: keys.sign,
    send: (body) => {
      const text = JSON.stringify(body);
      return post(text, keys.sign(text, Math.floor(Date.now() / 1000)));
    },
  };
}

const command = (id: string, token: string, options: unknown[]): Record<string, unknown> => ({
  id, application_id: APP_ID, type: 2, token, version: 1, guild_id: '1', channel_id: '555',
  member: { user: { id: '777', username: 'ada' } },
  data: { id: '9', name: 'ask', type: 1, options },
});

test('any signature failure is 401 and records nothing; PING is answered PONG', async (t) => {
  const s = await discordSetup(t, []);
  assert.equal(s.engine.adapters.status('discord').state, 'running');
  const ping = JSON.stringify({ id: '1', application_id: APP_ID, type: 1, token: 't', version: 1 });
  const now = Math.floor(Date.now() / 1000);
  const good = s.sign(ping, now);
  const other = discordKeys().sign(ping, now);
  const body = JSON.stringify(command('1100000000000000001', 'tok-bad', [{ name: 'message', type: 3, value: 'hello' }]));
  const refusals: Array<[string, string, Record<string, string>]> = [
    ['no signature headers', ping, { 'content-type': 'application/json' }],
    ['signed by another key', ping, other],
    ['a body other than the signed one', body, good],
    ['malformed hex', ping, { ...good, 'x-signature-ed25519': 'zz'.repeat(64) }],
    ['the wrong length', ping, { ...good, 'x-signature-ed25519': good['x-signature-ed25519']!.slice(0, 126) }],
    ['another timestamp', ping, { ...good, 'x-signature-timestamp': String(now - 1) }],
    ['a stale timestamp', ping, s.sign(ping, now - 3600)],
  ];
  for (const [what, payload, headers] of refusals) {
    const res = await s.post(payload, headers);
    assert.equal(res.status, 401, what);
    assert.match(res.json.error.code, /^KW_ERR_WEBHOOK_(SIGNATURE|STALE)$/, what);
  }
  assert.equal(s.model.requests.length, 0);
  assert.equal(s.engine.chat.list().length, 0);

  const pong = await s.post(ping, good);
  assert.equal(pong.status, 200);
  assert.deepEqual(pong.json, { type: 1 });
});

test('a command is answered deferred at once, then its response is edited with the answer; a command without text is told what to add', async (t) => {
  const s = await discordSetup(t, [{ text: 'It is due Friday. @everyone', chunkDelayMs: 20 }]);
  const deferred = await s.send(command('1100000000000000002', 'tok-abc.def', [{ name: 'message', type: 3, value: 'when is the invoice due?' }]));
  assert.equal(deferred.status, 200);
  assert.deepEqual(deferred.json, { type: 5 });
  // The same interaction again (a retry) starts nothing new.
  assert.deepEqual((await s.send(command('1100000000000000002', 'tok-abc.def', [{ name: 'message', type: 3, value: 'when is the invoice due?' }]))).json, { type: 5 });

  await waitFor(() => s.discord.calls.length >= 1, 'the edit of the deferred response');
  const [edit] = s.discord.calls;
  assert.equal(edit!.method, 'PATCH');
  assert.equal(edit!.path, `/api/v10/webhooks/${APP_ID}/tok-abc.def/messages/@original`);
  assert.deepEqual(edit!.body, { content: 'It is due Friday. @everyone', allowed_mentions: { parse: [] } });
  assert.equal(s.model.requests.length, 1, 'one turn for the interaction and its retry');
  assert.match(JSON.stringify(s.model.requests[0]!.body.messages.at(-1)), /when is the invoice due\?/);

  const empty = await s.send(command('1100000000000000003', 'tok-2', []));
  assert.equal(empty.json.type, 4);
  assert.equal(empty.json.data.flags, 64, 'only the user sees it');
  assert.match(empty.json.data.content, /\/ask needs something to say/);
  assert.equal(s.model.requests.length, 1);
  assert.equal(s.discord.calls.length, 1);
});

test('a command whose turn fails is edited to say so instead of "thinking…"; an edit Discord refuses is counted, not retried', async (t) => {
  const s = await discordSetup(t, [{ status: 400, error: 'the prompt is too long' }, { status: 400, error: 'the prompt is too long' }]);
  assert.deepEqual((await s.send(command('1100000000000000004', 'tok-fail', [{ name: 'message', type: 3, value: 'summarise everything' }]))).json, { type: 5 });
  await waitFor(() => s.discord.calls.length >= 1, 'the edit of the deferred response');
  const [edit] = s.discord.calls;
  assert.equal(edit!.method, 'PATCH');
  assert.equal(edit!.path, `/api/v10/webhooks/${APP_ID}/tok-fail/messages/@original`);
  assert.equal(edit!.body.content, "kowalski could not answer this: the agent's turn failed (KW_ERR_MODEL_REQUEST). The operator sees why in kowalski's Adapters screen.");
  assert.deepEqual(edit!.body.allowed_mentions, { parse: [] });
  assert.doesNotMatch(edit!.body.content, /too long/, 'the error\'s words stay with the operator');
  await waitFor(() => s.engine.adapters.status('discord').errorCount === 1, 'the failed turn counted');
  assert.match(s.engine.adapters.status('discord').lastError ?? '', /the turn of delivery 1100000000000000004 failed: /);

  // The token has expired by now (Discord: 404): that is counted as the adapter's error, and not tried again.
  s.discord.script('/messages/@original', [{ status: 404, body: { message: 'Unknown Webhook', code: 10015 } }]);
  await s.send(command('1100000000000000005', 'tok-late', [{ name: 'message', type: 3, value: 'and this?' }]));
  await waitFor(() => s.engine.adapters.status('discord').errorCount === 3, 'the failed turn and the refused edit counted');
  assert.match(s.engine.adapters.status('discord').lastError ?? '', /telling delivery 1100000000000000005 that no answer will come failed: .*HTTP 404/);
  assert.equal(s.discord.callsTo('/tok-late/messages/@original').length, 1, 'tried once');
  assert.equal(s.model.requests.length, 2);
});

test('a public key that is not 64 hex digits keeps the adapter from running, naming the key', async (t) => {
  const s = await discordSetup(t, [], 'abc123');
  const status = s.engine.adapters.status('discord');
  assert.equal(status.state, 'error');
  assert.match(String(status.lastError), /\[adapters\.discord\] public_key: must be the application's public key: 64 hex digits \(got 6 characters\)/);
  const res = await s.send({ type: 1 });
  assert.equal(res.status, 409);
  assert.equal(res.json.error.code, 'KW_ERR_ADAPTER_DISABLED');
});
