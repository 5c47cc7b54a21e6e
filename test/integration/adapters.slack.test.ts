/**
 * The Slack adapter end to end: a real engine and API, the scripted fake model, and a fake
 * Slack Web API on 127.0.0.1 recording every call. The signature is checked before
 * anything (the URL challenge included); the same message under two event ids and Slack's
 * retry make one turn and one reply in its thread; bots and our own messages are ignored;
 * a refused post is tried again; a wrong token makes the adapter `error`, never `running`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { buildApi } from '../../api/index.js';
import type { Engine } from '../../engine/index.js';
import { adapterSetup } from '../support/adapters.js';
import { cleanups } from '../../testkit/cleanup.js';
import { fakeSlackApi, SLACK_BOT_USER, slackSigned } from '../../testkit/fake-chat-apis.js';
import type { FakeChatApi } from '../../testkit/fake-chat-apis.js';
import type { FakeModelServer, FakeScript } from '../../testkit/fake-models.js';
import { waitFor } from '../../testkit/wait.js';
import { TEST_TOKEN } from '../support/token.js';

const SECRET = 'slack-signing-secret-for-tests';
const TOKEN = 'xoxb-test-token-123';
const PATH = '/adapters/slack/events';

interface SlackSetup {
  engine: Engine;
  model: FakeModelServer;
  slack: FakeChatApi;
  post(body: unknown, headers?: Record<string, string>): Promise<{ status: number; json: any }>;
  /** Signed now with the right secret. */
  send(body: unknown, extra?: Record<string, string>): Promise<{ status: number; json: any }>;
}

async function slackSetup(t: TestContext, script: FakeScript, options: { token?: string } = {}): Promise<SlackSetup> {
  const slack = await fakeSlackApi(cleanups(t), TOKEN);
  // The engine reads secrets from its process's environment (bot_token_env).
  process.env.KW_TEST_SLACK_TOKEN = options.token ?? TOKEN;
  cleanups(t)(() => delete process.env.KW_TEST_SLACK_TOKEN);
  const s = await adapterSetup(t, script, `[adapters.slack]\nenabled = true\nagent = "assistant"\nsigning_secret = "${SECRET}"\nbot_token_env = "KW_TEST_SLACK_TOKEN"\napi_url = "${slack.url}"\n`);
  await s.engine.adapters.start();
  const api = await buildApi(s.engine, { token: TEST_TOKEN, port: 8765, onInternalError: (err) => t.diagnostic(`internal: ${String(err)}`) });
  cleanups(t)(() => api.app.close());
  const post = async (body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> => {
    const res = await api.app.inject({ method: 'POST', url: PATH, headers: { host: '127.0.0.1:8765', ...headers }, payload: typeof body === 'string' ? body : JSON.stringify(body) });
    return { status: res.statusCode, json: res.body === '' ? undefined : JSON.parse(res.body) };
  };
  return {
    engine: s.engine, model: s.server, slack, post,
    send: (body, extra = {}) => {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      return post(text, slackSigned(SECRET, text, Math.floor(Date.now() / 1000), extra));
    },
  };
}

const event = (eventId: string, e: Record<string, unknown>): Record<string, unknown> => ({
  token: 'legacy', team_id: 'T1', api_app_id: 'A1', type: 'event_callback', event_id: eventId, event_time: 1_800_000_000, event: e,
});

test('the signature is checked before anything, the URL challenge included; nothing is recorded for a refusal', async (t) => {
  const s = await slackSetup(t, []);
  assert.equal(s.engine.adapters.status('slack').state, 'running');
  assert.equal(s.slack.callsTo('/auth.test').length, 1, 'our bot user id was asked of auth.test');
  const challenge = JSON.stringify({ token: 'legacy', challenge: 'c-123', type: 'url_verification' });

  const unsigned = await s.post(challenge, { 'content-type': 'application/json' });
  assert.equal(unsigned.status, 401);
  assert.equal(unsigned.json.error.code, 'KW_ERR_WEBHOOK_SIGNATURE');
  assert.equal(unsigned.json.challenge, undefined);

  const wrongSecret = await s.post(challenge, slackSigned('another-secret', challenge, Math.floor(Date.now() / 1000)));
  assert.equal(wrongSecret.status, 401);
  assert.match(wrongSecret.json.error.message, /does not match/);

  const message = JSON.stringify(event('EvSTALE', { type: 'message', user: 'U1', channel: 'C1', ts: '1800000000.000100', text: 'hello' }));
  const stale = await s.post(message, slackSigned(SECRET, message, Math.floor(Date.now() / 1000) - 301));
  assert.equal(stale.status, 401);
  assert.equal(stale.json.error.code, 'KW_ERR_WEBHOOK_STALE');
  const tampered = await s.post(message.replace('hello', 'hullo'), slackSigned(SECRET, message, Math.floor(Date.now() / 1000)));
  assert.equal(tampered.status, 401);
  assert.equal(tampered.json.error.code, 'KW_ERR_WEBHOOK_SIGNATURE');

  const ok = await s.send(JSON.parse(challenge));
  assert.equal(ok.status, 200);
  assert.deepEqual(ok.json, { challenge: 'c-123' });
  assert.equal(s.model.requests.length, 0, 'no turn started for any of them');
  assert.equal(s.engine.chat.list().length, 0);
  assert.equal(s.slack.callsTo('/chat.postMessage').length, 0);
});

test('one message under two event ids and a retry makes one turn and one reply in its thread; a reply in the thread goes on in the same session', async (t) => {
  const s = await slackSetup(t, [{ text: 'Two invoices are due: <!channel> & co.' }, { text: 'The second one is from ACME.' }]);
  const ts = '1800000000.000100';
  const asMessage = await s.send(event('Ev1', { type: 'message', channel_type: 'channel', user: 'U2', channel: 'C9', ts, text: `<@${SLACK_BOT_USER}> what is due?` }));
  assert.equal(asMessage.status, 200);
  assert.equal(asMessage.json.duplicate, false);
  const asMention = await s.send(event('Ev2', { type: 'app_mention', user: 'U2', channel: 'C9', ts, text: `<@${SLACK_BOT_USER}> what is due?` }));
  assert.equal(asMention.json.duplicate, true, 'the same channel and ts under another event id');
  const retry = await s.send(event('Ev1', { type: 'message', user: 'U2', channel: 'C9', ts, text: `<@${SLACK_BOT_USER}> what is due?` }), { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' });
  assert.equal(retry.status, 200);
  assert.equal(retry.json.duplicate, true);

  await waitFor(() => s.slack.callsTo('/chat.postMessage').length >= 1, 'the reply in Slack');
  const [reply] = s.slack.callsTo('/chat.postMessage');
  assert.equal(reply!.headers.authorization, `Bearer ${TOKEN}`);
  assert.deepEqual(reply!.body, { channel: 'C9', thread_ts: ts, text: 'Two invoices are due: &lt;!channel&gt; &amp; co.', unfurl_links: false });
  assert.equal(s.model.requests.length, 1, 'one turn');
  const question = s.model.requests[0]!.body.messages.at(-1);
  assert.equal(question.content.includes('what is due?'), true);
  assert.equal(question.content.includes(SLACK_BOT_USER), false, 'the mention of our bot is taken out');

  // Bots, our own bot and edits start nothing.
  for (const [id, e] of [
    ['Ev3', { type: 'message', channel: 'C9', ts: '1800000001.000100', bot_id: 'B9', text: 'a bot' }],
    ['Ev4', { type: 'message', channel: 'C9', ts: '1800000002.000100', user: SLACK_BOT_USER, text: 'Two invoices are due', thread_ts: ts }],
    ['Ev5', { type: 'message', channel: 'C9', ts: '1800000003.000100', subtype: 'message_changed', message: { text: 'x' } }],
  ] as const) {
    const ignored = await s.send(event(id, e));
    assert.equal(ignored.status, 200);
    assert.equal(typeof ignored.json.ignored, 'string', id);
  }

  const inThread = await s.send(event('Ev6', { type: 'message', user: 'U2', channel: 'C9', ts: '1800000010.000200', thread_ts: ts, text: 'which is from whom?' }));
  assert.equal(inThread.json.duplicate, false);
  await waitFor(() => s.slack.callsTo('/chat.postMessage').length >= 2, 'the second reply');
  assert.equal(s.slack.callsTo('/chat.postMessage')[1]!.body.thread_ts, ts, 'in the same thread');
  assert.equal(s.model.requests.length, 2);
  const history = s.model.requests[1]!.body.messages.map((m: any) => String(m.content)).join('\n');
  assert.match(history, /Two invoices are due/, 'the thread is one session: the earlier answer is in its history');
  assert.equal(s.slack.callsTo('/chat.postMessage').length, 2);
  assert.equal(s.engine.chat.list().length, 1);
});

test('a post Slack refuses ({ok: false}) is tried again and sent once', async (t) => {
  const s = await slackSetup(t, [{ text: 'Done.' }]);
  s.slack.script('/chat.postMessage', [{ status: 200, body: { ok: false, error: 'ratelimited' } }]);
  const accepted = await s.send(event('EvR', { type: 'message', user: 'U2', channel: 'D1', channel_type: 'im', ts: '1800000100.000100', text: 'tidy up' }));
  await waitFor(() => s.engine.adapters.record(accepted.json.record)?.state === 'replied', 'the reply sent after a refusal');
  const record = s.engine.adapters.record(accepted.json.record)!;
  assert.equal(record.replyAttempts, 2);
  assert.match(String(record.lastError), /Slack chat\.postMessage refused: ratelimited/);
  assert.equal(record.answer, 'Done.');
  assert.equal(s.slack.callsTo('/chat.postMessage').length, 2);
  assert.equal(s.engine.adapters.status('slack').state, 'running');
  assert.equal(s.model.requests.length, 1, 'the answer is not asked for again');
});

test('a wrong bot token makes the adapter error at start (never running), and the token is never shown', async (t) => {
  const s = await slackSetup(t, [], { token: 'xoxb-wrong-token-999' });
  const status = s.engine.adapters.status('slack');
  assert.equal(status.state, 'error');
  assert.match(String(status.lastError), /auth\.test refused: invalid_auth \(the bot token is wrong/);
  const shown = JSON.stringify(s.engine.adapters.list());
  assert.equal(shown.includes('xoxb-wrong-token-999'), false);
  assert.equal(shown.includes(SECRET), false);
  const refused = await s.send({ type: 'url_verification', challenge: 'c' });
  assert.equal(refused.status, 409, 'an adapter in error answers nothing');
  assert.equal(refused.json.error.code, 'KW_ERR_ADAPTER_DISABLED');
  assert.equal(refused.json.error.message.includes('invalid_auth'), false, 'why it does not run is for the operator, not for whoever calls the public route');
});

test('bound beyond loopback, Slack reaches its route without the bearer token (its signature is the check); the API still needs the token', async (t) => {
  const s = await slackSetup(t, []);
  const api = await buildApi(s.engine, { host: '0.0.0.0', token: 't'.repeat(40), port: 8765 });
  cleanups(t)(() => api.app.close());
  const body = JSON.stringify({ type: 'url_verification', challenge: 'c-open' });
  const inject = (url: string, headers: Record<string, string>, payload?: string) =>
    api.app.inject({ method: payload === undefined ? 'GET' : 'POST', url, headers: { host: '127.0.0.1:8765', ...headers }, ...(payload === undefined ? {} : { payload }) });
  const signed = await inject(PATH, slackSigned(SECRET, body, Math.floor(Date.now() / 1000)), body);
  assert.equal(signed.statusCode, 200);
  assert.deepEqual(JSON.parse(signed.body), { challenge: 'c-open' });
  const unsigned = await inject(PATH, { 'content-type': 'application/json' }, body);
  assert.equal(unsigned.statusCode, 401);
  assert.equal(JSON.parse(unsigned.body).error.code, 'KW_ERR_WEBHOOK_SIGNATURE');
  const apiCall = await inject('/api/adapters', {});
  assert.equal(apiCall.statusCode, 401);
  assert.equal(JSON.parse(apiCall.body).error.code, 'KW_ERR_UNAUTHORIZED');
});
