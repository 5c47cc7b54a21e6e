/**
 * Adapters, plugins' grants and the send and mcp_call steps' records on one Postgres database
 * shared by two nodes (two engines of this process, each with its own data folder, its own
 * API and fake model; one fake Slack Web API): one Slack event delivered to both nodes is
 * answered once; a conversation's chat session is found by the node the next message reaches;
 * a switch made on one node is honoured by the other; a plugin granted on one node is granted
 * on the other, audit included; a step's delivery and a tool's answer written through one
 * node's store are found through the other's, so a run handed over (its node killed in a
 * `send` or `mcp_call` step, in a child process) neither sends nor calls again.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import { buildApi } from '../../api/index.js';
import { createEngine } from '../../engine/index.js';
import type { Engine } from '../../engine/index.js';
import { PgSession } from '../../engine/store/pg/session.js';
import { pgAdapterQueries } from '../../engine/store/pg/sql/adapters.js';
import { pgStepCallQueries } from '../../engine/store/pg/sql/step-calls.js';
import { pgStepSendQueries } from '../../engine/store/pg/sql/step-sends.js';
import { openSyncPg } from '../../engine/store/pg/sync-pg.js';
import { cleanups } from '../../testkit/cleanup.js';
import { cli, stdoutJson } from '../../testkit/cli.js';
import { nodeArgsFor, testOwnCode, testSyncPgModule } from '../../testkit/dist.js';
import { CHILD_LEASE_SECS, leasesLapsed } from '../../testkit/pg-store.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeModelServer, FakeScript } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { waitFor } from '../../testkit/wait.js';
import { adapterSetup, lastUserText, serveWithAdapter } from '../support/adapters.js';
import { fakeSlackApi, SLACK_BOT_USER, slackSigned } from '../../testkit/fake-chat-apis.js';
import type { FakeChatApi } from '../../testkit/fake-chat-apis.js';
import { freshPostgresUrl, pgTestEngine } from '../support/pg-engine.js';
import { writeHorde } from '../support/engine.js';
import { installExample } from '../support/plugin-home.js';
import { TEST_TOKEN } from '../support/token.js';

const SECRET = 'slack-signing-secret-for-tests';
const PRICE_SERVER = fileURLToPath(new URL('../fixtures/mcp/prices.mjs', import.meta.url));
const TOKEN = 'xoxb-test-token-123';

interface SlackNode {
  engine: Engine;
  model: FakeModelServer;
  /** The event, signed now, posted to this node's Slack route. */
  send(body: unknown, extra?: Record<string, string>): Promise<{ status: number; json: any }>;
}

/** A node on `url` whose Slack adapter posts to `slack`, started and serving its API (injected requests). */
async function slackNode(t: TestContext, url: string, slack: FakeChatApi, script: FakeScript): Promise<SlackNode> {
  const s = await adapterSetup(t, script,
    `[adapters.slack]\nenabled = true\nagent = "assistant"\nsigning_secret = "${SECRET}"\nbot_token_env = "KW_TEST_SLACK_TOKEN"\napi_url = "${slack.url}"\n[store]\nurl = "${url}"\n`);
  await s.engine.adapters.start();
  const api = await buildApi(s.engine, { token: TEST_TOKEN, port: 8765, onInternalError: (err) => t.diagnostic(`internal: ${String(err)}`) });
  cleanups(t)(() => api.app.close());
  return {
    engine: s.engine, model: s.server,
    async send(body, extra = {}) {
      const text = JSON.stringify(body);
      const res = await api.app.inject({
        method: 'POST', url: '/adapters/slack/events', payload: text,
        headers: { host: '127.0.0.1:8765', ...slackSigned(SECRET, text, Math.floor(Date.now() / 1000), extra) },
      });
      return { status: res.statusCode, json: res.body === '' ? undefined : JSON.parse(res.body) };
    },
  };
}

/** Two Slack nodes on one fresh database, and the fake Slack they both post to. */
async function twoSlackNodes(t: TestContext, scriptA: FakeScript, scriptB: FakeScript): Promise<{ a: SlackNode; b: SlackNode; slack: FakeChatApi; url: string }> {
  const slack = await fakeSlackApi(cleanups(t), TOKEN);
  process.env.KW_TEST_SLACK_TOKEN = TOKEN;
  cleanups(t)(() => delete process.env.KW_TEST_SLACK_TOKEN);
  const url = await freshPostgresUrl();
  const a = await slackNode(t, url, slack, scriptA);
  const b = await slackNode(t, url, slack, scriptB);
  return { a, b, slack, url };
}

/** The typed functions on the database, through a connection of the test's own (as another node's). */
function storeOf(t: TestContext, url: string): PgSession {
  const pg = openSyncPg(url, { module: testSyncPgModule() });
  cleanups(t)(() => pg.close());
  return new PgSession(pg);
}

const event = (eventId: string, e: Record<string, unknown>): Record<string, unknown> => ({
  token: 'legacy', team_id: 'T1', api_app_id: 'A1', type: 'event_callback', event_id: eventId, event_time: 1_800_000_000, event: e,
});

test('one Slack event delivered to both nodes (and a retry, and the same message under another event id) is one record, one turn, one reply', async (t) => {
  const { a, b, slack, url } = await twoSlackNodes(t, [{ text: 'Two invoices are due.' }], [{ text: 'Two invoices are due.' }]);
  const ts = '1800000000.000100';
  const message = event('Ev1', { type: 'message', channel_type: 'channel', user: 'U2', channel: 'C9', ts, text: `<@${SLACK_BOT_USER}> what is due?` });
  // Delivered to both at once (a load balancer that sent it twice, Slack's retry reaching the other node).
  const [toA, toB] = await Promise.all([a.send(message), b.send(message, { 'x-slack-retry-num': '1', 'x-slack-retry-reason': 'http_timeout' })]);
  assert.equal(toA.status, 200);
  assert.equal(toB.status, 200);
  assert.deepEqual([toA.json.duplicate, toB.json.duplicate].sort(), [false, true], 'one node took it, the other found it taken');
  assert.equal(toA.json.record, toB.json.record, 'one record, in the shared table');
  const mention = await b.send(event('Ev2', { type: 'app_mention', user: 'U2', channel: 'C9', ts, text: `<@${SLACK_BOT_USER}> what is due?` }));
  assert.equal(mention.json.duplicate, true, 'the same channel and ts under another event id, on the other node: its dedupe key is shared');

  const taker = toA.json.duplicate === false ? a : b;
  await waitFor(() => taker.engine.adapters.record(toA.json.record)?.state === 'replied', 'the reply');
  const record = (toA.json.duplicate === false ? b : a).engine.adapters.record(toA.json.record);
  assert.equal(record?.state, 'replied', 'the other node reads the same record');
  assert.equal(a.model.requests.length + b.model.requests.length, 1, 'one turn in all');
  assert.equal(slack.callsTo('/chat.postMessage').length, 1, 'one reply in all');
  assert.deepEqual(slack.callsTo('/chat.postMessage')[0]!.body, { channel: 'C9', thread_ts: ts, text: 'Two invoices are due.', unfurl_links: false });

  // The conversation's session is in the shared table: the node the next message of the thread reaches finds it there.
  const sessions = pgAdapterQueries(storeOf(t, url));
  assert.equal(sessions.sessionOf('slack', record!.conversation), record!.sessionId);
  assert.ok(record!.sessionId !== null && taker.engine.chat.get(record!.sessionId).transcript.length === 1);
});

test('two `kowalski serve` nodes given the same Slack events at the same moment: each event is recorded once, answered once, posted once', async (t) => {
  const url = await freshPostgresUrl();
  const model = await startFakeOllama((body) => ({ text: `answer to ${lastUserText(body).split('\n').at(-1) ?? ''}` }));
  cleanups(t)(() => model.close());
  const slack = await fakeSlackApi(cleanups(t), TOKEN);
  const nodes = await Promise.all(['a', 'b'].map(async (name) => {
    const home = tempDir(t, `kw-pgslack-${name}-`);
    fs.writeFileSync(path.join(home, 'config.toml'), [
      '[model]', 'default = "ollama:qwen2.5:7b"', '[providers.ollama]', `host = "${model.url}"`,
      '[adapters.slack]', 'enabled = true', 'agent = "assistant"', `signing_secret = "${SECRET}"`, 'bot_token_env = "KW_TEST_SLACK_TOKEN"', `api_url = "${slack.url}"`,
      '[store]', `url = "${url}"`, '',
    ].join('\n'));
    const { server, url: base } = await serveWithAdapter(t, home, 'slack', { KW_TEST_SLACK_TOKEN: TOKEN });
    return { server, base };
  }));
  const deliver = async (base: string, body: string): Promise<{ duplicate: boolean; record: number }> => {
    const res = await fetch(`${base}/adapters/slack/events`, { method: 'POST', headers: slackSigned(SECRET, body, Math.floor(Date.now() / 1000)), body });
    assert.equal(res.status, 200);
    return await res.json() as { duplicate: boolean; record: number };
  };
  const events = Array.from({ length: 8 }, (_, i) => JSON.stringify(event(`EvRace${i}`, {
    type: 'message', channel_type: 'im', user: 'U2', channel: `D${i}`, ts: `18000000${i}0.000100`, text: `question ${i}`,
  })));
  // Every event to both nodes at once: the two processes race to claim each.
  const answers = await Promise.all(events.map((body) => Promise.all(nodes.map((n) => deliver(n.base, body)))));
  for (const [i, pair] of answers.entries()) {
    assert.deepEqual(pair.map((p) => p.duplicate).sort(), [false, true], `event ${i}: taken by one node, a duplicate on the other`);
    assert.equal(pair[0]!.record, pair[1]!.record, `event ${i}: one record`);
  }
  await waitFor(() => slack.callsTo('/chat.postMessage').length >= events.length, 'every answer posted', 60_000);
  for (const n of nodes) {
    n.server.child.kill('SIGTERM');
    await n.server.exited;
  }
  const posts = slack.callsTo('/chat.postMessage').map((c) => c.body.text as string).sort();
  assert.deepEqual(posts, events.map((_, i) => `answer to question ${i}`).sort(), 'each answered and posted once');
  assert.equal(model.requests.length, events.length, 'one turn per event');
});

test('a `kowalski serve` node SIGKILLed while answering a Slack message: the other node finishes the turn and posts the reply, once', async (t) => {
  const url = await freshPostgresUrl();
  // The first model call (A's) never answers: A is killed during it; asked again, it answers.
  const model = await startFakeOllama((_body, i) => (i === 0 ? { hang: true } : { text: 'Filed under invoices.' }));
  cleanups(t)(() => model.close());
  const slack = await fakeSlackApi(cleanups(t), TOKEN);
  const [a, b] = await Promise.all(['a', 'b'].map(async (name) => {
    const home = tempDir(t, `kw-pgslack-${name}-`);
    fs.writeFileSync(path.join(home, 'config.toml'), [
      '[model]', 'default = "ollama:qwen2.5:7b"', '[providers.ollama]', `host = "${model.url}"`,
      '[adapters.slack]', 'enabled = true', 'agent = "assistant"', `signing_secret = "${SECRET}"`, 'bot_token_env = "KW_TEST_SLACK_TOKEN"', `api_url = "${slack.url}"`,
      '[store]', `url = "${url}"`, `lease_secs = ${CHILD_LEASE_SECS}`, '',
    ].join('\n'));
    return serveWithAdapter(t, home, 'slack', { KW_TEST_SLACK_TOKEN: TOKEN });
  })) as [Awaited<ReturnType<typeof serveWithAdapter>>, Awaited<ReturnType<typeof serveWithAdapter>>];
  const body = JSON.stringify(event('EvKill', { type: 'message', channel_type: 'im', user: 'U2', channel: 'D7', ts: '1800000000.000300', text: 'file this invoice' }));
  const res = await fetch(`${a.url}/adapters/slack/events`, { method: 'POST', headers: slackSigned(SECRET, body, Math.floor(Date.now() / 1000)), body });
  assert.equal(((await res.json()) as { duplicate: boolean }).duplicate, false, 'A recorded the event');
  await waitFor(() => model.requests.length === 1, "A's turn calling the model");
  a.server.child.kill('SIGKILL');
  await a.server.exited;

  // Nobody sends B anything: it takes the dead node's turn and its conversation over by itself.
  await waitFor(() => slack.callsTo('/chat.postMessage').length >= 1, 'the reply, posted by B', 30_000);
  b.server.child.kill('SIGTERM');
  await b.server.exited;
  const posts = slack.callsTo('/chat.postMessage');
  assert.equal(posts.length, 1, 'posted once');
  assert.deepEqual(posts[0]!.body, { channel: 'D7', thread_ts: '1800000000.000300', text: 'Filed under invoices.', unfurl_links: false });
  assert.equal(model.requests.length, 2, 'the call cut by the kill was asked again, once');
  const record = pgAdapterQueries(storeOf(t, url)).byDelivery('slack', 'EvKill')!;
  assert.deepEqual([record.state, record.turn, record.reply_attempts], ['replied', 1, 1]);
});

test('a message reaching one node while the other answers its conversation is left to that node: answered after the first, in the same session, by it', async (t) => {
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const { a, b, slack } = await twoSlackNodes(t, [{ text: 'First answer.', heldUntil: held }, { text: 'Second answer.' }], [{ text: 'Not from B.' }]);
  const ts = '1800000000.000100';
  const first = await a.send(event('Ev1', { type: 'message', channel_type: 'channel', user: 'U2', channel: 'C9', ts, text: `<@${SLACK_BOT_USER}> first` }));
  await waitFor(() => a.model.requests.length === 1, 'A answering the first message');
  const second = await b.send(event('Ev6', { type: 'message', user: 'U2', channel: 'C9', ts: '1800000010.000200', thread_ts: ts, text: 'second' }));
  assert.equal(second.json.duplicate, false, 'B records it');
  release();
  await waitFor(() => a.engine.adapters.record(second.json.record)?.state === 'replied', 'the second message answered');
  assert.equal(b.model.requests.length, 0, 'B left the conversation to A, which held it');
  assert.deepEqual([b.engine.adapters.status('slack').errorCount, b.engine.adapters.status('slack').lastError], [0, null], 'B did not touch the message A was answering');
  assert.equal(a.model.requests.length, 2);
  assert.deepEqual(slack.callsTo('/chat.postMessage').map((c) => c.body.text), ['First answer.', 'Second answer.'], 'in order');
  assert.equal(a.engine.adapters.record(second.json.record)!.sessionId, a.engine.adapters.record(first.json.record)!.sessionId, 'one session');
});

test('a thread begun on one node goes on in the same chat session on the other', async (t) => {
  const { a, b, slack } = await twoSlackNodes(t, [{ text: 'Two invoices are due.' }], [{ text: 'The second is from ACME.' }]);
  const ts = '1800000000.000100';
  const first = await a.send(event('Ev1', { type: 'message', channel_type: 'channel', user: 'U2', channel: 'C9', ts, text: `<@${SLACK_BOT_USER}> what is due?` }));
  await waitFor(() => a.engine.adapters.record(first.json.record)?.state === 'replied', 'the first reply, from A');
  const second = await b.send(event('Ev6', { type: 'message', user: 'U2', channel: 'C9', ts: '1800000010.000200', thread_ts: ts, text: 'which is from whom?' }));
  assert.equal(second.json.duplicate, false);
  await waitFor(() => b.engine.adapters.record(second.json.record)?.state === 'replied', 'the second reply, from B');
  assert.equal(b.engine.adapters.record(second.json.record)!.sessionId, a.engine.adapters.record(first.json.record)!.sessionId, 'one session');
  assert.match(b.model.requests[0]!.body.messages.map((m: any) => String(m.content)).join('\n'), /Two invoices are due/, 'with A\'s answer in its history');
  assert.equal(slack.callsTo('/chat.postMessage').length, 2);
});

test('an adapter switched off on one node is off on the other (the event it gets is refused, its adapter stopped); switched on again, it answers there', async (t) => {
  const { a, b, slack } = await twoSlackNodes(t, [], [{ text: 'Back on.' }]);
  assert.equal(b.engine.adapters.status('slack').state, 'running');

  const off = await a.engine.adapters.disable('slack', 'ana');
  assert.equal(off.enabled, false);
  const refused = await b.send(event('EvOff', { type: 'message', channel_type: 'im', user: 'U2', channel: 'D1', ts: '1800000100.000100', text: 'anyone?' }));
  assert.equal(refused.status, 409, JSON.stringify(refused.json));
  assert.equal(refused.json.error.code, 'KW_ERR_ADAPTER_DISABLED');
  assert.equal(b.engine.adapters.status('slack').enabled, false, 'B reads the switch A made');
  await waitFor(() => b.engine.adapters.status('slack').state === 'stopped', 'B\'s Slack adapter stopped');

  await a.engine.adapters.enable('slack', 'ana');
  assert.equal(b.engine.adapters.status('slack').enabled, true, 'the switch back on, read by B');
  await waitFor(() => b.engine.adapters.status('slack').state === 'running', 'B\'s Slack adapter started again');
  const accepted = await b.send(event('EvOn', { type: 'message', channel_type: 'im', user: 'U2', channel: 'D1', ts: '1800000200.000100', text: 'anyone now?' }));
  assert.equal(accepted.status, 200);
  assert.equal(accepted.json.duplicate, false);
  await waitFor(() => b.engine.adapters.record(accepted.json.record)?.state === 'replied', 'B\'s reply');
  assert.equal(slack.callsTo('/chat.postMessage').length, 1);
  assert.equal(a.model.requests.length, 0);
});

test('a plugin granted on one node is granted on the other, with its audit; revoked there, it is pending on both', async (t) => {
  const url = await freshPostgresUrl();
  const homes = [tempDir(t, 'kw-pgplug-a-'), tempDir(t, 'kw-pgplug-b-')];
  const docs = fs.realpathSync(tempDir(t, 'kw-pgplug-docs-'));
  for (const home of homes) installExample(home, docs);
  // B's team has a profile naming the plugin's tool: known there once the plugin is granted, by whichever node.
  const greeter = path.join(homes[1]!, 'team', 'greeter.md');
  fs.mkdirSync(path.dirname(greeter), { recursive: true });
  fs.writeFileSync(greeter, '---\nname = "greeter"\ndescription = "Greets."\ntools = ["hello__greet"]\n---\n\nYou are greeter.\n');
  const a = (await pgTestEngine(t, { url, dataDir: homes[0]! })).engine;
  const b = (await pgTestEngine(t, { url, dataDir: homes[1]! })).engine;
  assert.deepEqual([a.plugins.get('hello').state, b.plugins.get('hello').state], ['pending', 'pending']);
  const greeterProblems = (): string[] => b.team.catalog().problems.filter((p) => p.file === greeter).map((p) => p.code);
  assert.deepEqual(greeterProblems(), ['KW_ERR_TOOL_UNKNOWN']);

  a.plugins.grant('hello', 'ann');
  // B hears of the grant (kw_plugins): its registry offers the tool before anything on B reads the plugins.
  await waitFor(() => greeterProblems().length === 0, "B's registry to offer the tool of the plugin A granted");
  const there = b.plugins.get('hello');
  assert.equal(there.state, 'granted', 'granted on B too');
  assert.equal(there.grantedBy, 'ann');
  assert.deepEqual(b.plugins.audit('hello').map((e) => [e.action, e.by]), [['grant', 'ann']]);
  // `kowalski agents` (no engine) on B's folder checks a profile's tools against the shared grants too.
  const agents = async (): Promise<Array<{ code: string }>> => {
    const r = await cli(homes[1]!, ['agents', '--json'], { env: { KOWALSKI_DATABASE_URL: url } });
    return stdoutJson<{ problems: Array<{ code: string }> }>(r).problems;
  };
  assert.deepEqual(await agents(), [], 'the tool of a plugin granted on A is known on B');

  b.plugins.revoke('hello', 'bo');
  await waitFor(() => greeterProblems().includes('KW_ERR_TOOL_UNKNOWN'), "B's own revoke takes the tool away at once");
  assert.equal(a.plugins.get('hello').state, 'pending', 'revoked on A too');
  assert.deepEqual(a.plugins.audit('hello').map((e) => [e.action, e.by]), [['grant', 'ann'], ['revoke', 'bo']]);
  assert.deepEqual((await agents()).map((p) => p.code), ['KW_ERR_TOOL_UNKNOWN'], 'revoked: unknown again');
});

test('a send step\'s delivery and an mcp_call\'s answer written through one node\'s store are found through the other\'s: no second send, no second call', async (t) => {
  const url = await freshPostgresUrl();
  // The run the steps belong to: a node's run store makes the database.
  await pgTestEngine(t, { url });
  const [onA, onB] = [storeOf(t, url), storeOf(t, url)];
  const [sendsA, sendsB] = [pgStepSendQueries(onA), pgStepSendQueries(onB)];
  const delivery = { runId: 'run-1', step: 'notify', adapter: 'slack', target: 'C9', bytes: 12, sha256: 'ab'.repeat(32), at: 1000 };

  assert.equal(sendsA.begin(delivery), true, 'A records its intent before sending');
  assert.equal(sendsB.begin({ ...delivery, at: 1500 }), false, 'B, after a hand-over, finds it: it does not send');
  assert.equal(sendsB.ofStep('run-1', 'notify')?.state, 'sending', 'an outcome B cannot know');
  sendsA.finish('run-1', 'notify', 'sent', 'msg-7', null, 2000);
  assert.deepEqual({ ...sendsB.ofStep('run-1', 'notify'), id: 0 }, {
    id: 0, run_id: 'run-1', step: 'notify', adapter: 'slack', target: 'C9', state: 'sent', bytes: 12, sha256: 'ab'.repeat(32),
    message_id: 'msg-7', error: null, created_at: 1000, updated_at: 2000,
  });
  // A refused delivery may be tried again, by whichever node has the run.
  assert.equal(sendsA.begin({ ...delivery, step: 'tell' }), true);
  sendsA.finish('run-1', 'tell', 'refused', null, 'channel_not_found', 2100);
  assert.equal(sendsB.begin({ ...delivery, step: 'tell', at: 2200 }), true);
  assert.deepEqual(sendsA.ofRun('run-1').map((r) => [r.step, r.state]), [['notify', 'sent'], ['tell', 'sending']]);

  const [callsA, callsB] = [pgStepCallQueries(onA), pgStepCallQueries(onB)];
  callsA.record({ runId: 'run-1', step: 'look', attempt: 1, tool: 'files__list', argsSha256: 'cd'.repeat(32), content: 'three files', structured: '{"n":3}', fromAttempt: null, at: 3000 });
  const earlier = callsB.latestBefore('run-1', 'look', 2);
  assert.equal(earlier?.content, 'three files', 'B\'s next attempt gets the answer A recorded: it does not call again');
  assert.equal(earlier?.structured, '{"n":3}');
  callsB.record({ runId: 'run-1', step: 'look', attempt: 2, tool: 'files__list', argsSha256: 'cd'.repeat(32), content: earlier!.content, structured: earlier!.structured, fromAttempt: 1, at: 3100 });
  callsA.record({ runId: 'run-1', step: 'look', attempt: 2, tool: 'files__list', argsSha256: 'cd'.repeat(32), content: 'another', structured: null, fromAttempt: null, at: 3200 });
  assert.deepEqual(callsA.ofRun('run-1').map((r) => [r.attempt, r.content, r.from_attempt]), [[1, 'three files', null], [2, 'three files', 1]], 'a second record of one attempt is ignored');
});

/**
 * Node A, in its own process, starts a run of horde `told` (`steps`, confirm_commands off) and is
 * SIGKILLed at `point`; once its leases lapse, node B (this process, `config` beside the shared
 * store) takes the run over. Returns B and the run's id; `before` runs once A is dead.
 */
async function handedOver(t: TestContext, o: { config: string; pipeline: string[]; steps: Record<string, string>; point: string; before?: () => void }): Promise<{ b: Engine; runId: string }> {
  const url = await freshPostgresUrl();
  const files = tempDir(t, 'kw-handover-files-');
  const homeA = tempDir(t, 'kw-handover-a-');
  fs.writeFileSync(path.join(homeA, 'config.toml'), o.config);
  const horde = path.join(homeA, 'hordes', 'told');
  writeHorde(horde, `id = "told"\npipeline = ${JSON.stringify(o.pipeline)}\nconfirm_commands = false`, o.steps);
  const child = spawn(process.execPath, [...nodeArgsFor('testkit/pg-node.ts'), url, homeA, files, String(CHILD_LEASE_SECS), horde], {
    stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, KOWALSKI_CRASH_AT: o.point, KW_TEST_SLACK_TOKEN: TOKEN },
  });
  cleanups(t)(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));
  const facts: Array<Record<string, unknown>> = [];
  readline.createInterface({ input: child.stdout! }).on('line', (line) => facts.push(JSON.parse(line) as Record<string, unknown>));
  const [, signal] = await once(child, 'exit') as [number | null, string | null];
  assert.equal(signal, 'SIGKILL', `A was killed at ${o.point}`);
  const runId = facts.find((f) => 'run' in f)?.run as string;
  o.before?.();
  await leasesLapsed(url);

  const homeB = tempDir(t, 'kw-handover-b-');
  fs.writeFileSync(path.join(homeB, 'config.toml'), `${o.config}[store]\nurl = "${url}"\nfiles = "${files}"\nlease_secs = ${CHILD_LEASE_SECS}\n`);
  process.env.KW_TEST_SLACK_TOKEN = TOKEN;
  cleanups(t)(() => delete process.env.KW_TEST_SLACK_TOKEN);
  const b = await createEngine({ ownCode: testOwnCode(), dataDir: homeB });
  cleanups(t)(() => b.close());
  await b.recover();
  return { b, runId };
}

for (const { point, state } of [
  { point: 'send-after-delivery:1', state: 'failed' },
  { point: 'before-result-commit:2', state: 'succeeded' },
] as const) {
  test(`a node killed at ${point} of a send step: the node that takes the run over finds the delivery and does not send again (the run ${state})`, async (t) => {
    const slack = await fakeSlackApi(cleanups(t), TOKEN);
    const { b, runId } = await handedOver(t, {
      config: `[adapters.team-slack]\ntype = "slack"\nenabled = true\nsigning_secret = "unused"\nbot_token_env = "KW_TEST_SLACK_TOKEN"\napi_url = "${slack.url}"\n`,
      pipeline: ['check', 'tell'],
      steps: { check: 'kind = "verify"\nverify_command = "echo all green"', tell: 'kind = "send"\ncontext_paths = ["@step:check@"]\nadapter = "team-slack"\nto = "#ops"' },
      point,
      before: () => assert.equal(slack.callsTo('/chat.postMessage').length, 1, 'A sent it'),
    });
    assert.equal(await b.waitForRun(runId), state);
    assert.equal(slack.callsTo('/chat.postMessage').length, 1, 'never sent twice');
    const tell = b.getRun(runId).steps.find((s) => s.name === 'tell')!;
    if (state === 'failed') assert.equal(tell.error?.code, 'KW_ERR_SEND_OUTCOME_UNKNOWN', JSON.stringify(tell));
    else assert.match(fs.readFileSync(path.join(b.getRun(runId).workdir, 'tell.md'), 'utf8'), /sent by an earlier attempt of this step, before an interruption; it was not sent again/);
  });
}

for (const point of ['call-after-answer:1', 'before-result-commit:1']) {
  test(`a node killed at ${point} of an mcp_call step: the node that takes the run over is given the recorded answer and does not call again`, async (t) => {
    const calls = path.join(tempDir(t, 'kw-handover-calls-'), 'calls.ndjson');
    const { b, runId } = await handedOver(t, {
      config: `[[mcp.servers]]\nname = "quotes"\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(PRICE_SERVER)}]\nenv = { PRICES_CALLS = ${JSON.stringify(calls)} }\n`,
      pipeline: ['fetch'],
      steps: { fetch: 'kind = "mcp_call"\ntool = "quotes.closes"\narguments = { symbols = "AAPL,MSFT" }\noutput = "inputs/prices/prices.json"' },
      point,
      before: () => assert.equal(fs.readFileSync(calls, 'utf8').trim().split('\n').length, 1, 'the tool answered A before the kill'),
    });
    assert.equal(await b.waitForRun(runId), 'succeeded');
    assert.equal(fs.readFileSync(calls, 'utf8').trim().split('\n').length, 1, 'never called twice');
    assert.equal(b.getRun(runId).steps.find((s) => s.name === 'fetch')!.summary,
      'quotes.closes: 6 rows into inputs/prices/prices.json (the answer attempt 1 got, before an interruption: not called again)');
  });
}
