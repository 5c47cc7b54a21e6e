/**
 * Plugin adapters end to end: the example plugin (examples/plugin-hello, copied into a data
 * folder) with its `relay` adapter, in its own process under its grants, behind a real engine
 * and a real API server listening on 127.0.0.1; the scripted fake model answers; a fake relay
 * (an HTTP server on 127.0.0.1) takes the answers the plugin posts with `kowalski.fetch`.
 * Proven: a message is recorded durably, answered by a chat turn, and the answer delivered
 * through the plugin; a redelivery is deduplicated; a bad signature records nothing; without
 * a `net` grant the answer cannot leave and the adapter's status says why; a plugin not
 * granted leaves the adapter `error`; a plugin that crashes is counted and the server goes on.
 */
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { buildApi } from '../../api/index.js';
import { createEngine } from '../../engine/index.js';
import type { Engine } from '../../engine/index.js';
import { cleanups } from '../../testkit/cleanup.js';
import type { FakeModelServer } from '../../testkit/fake-models.js';
import { freePort } from '../../testkit/free-port.js';
import { tempDir } from '../../testkit/tmp.js';
import { waitFor } from '../../testkit/wait.js';
import { adapterSetup, echoScript } from '../support/adapters.js';
import { serveHttp } from '../support/http.js';
import { editManifest, installExample } from '../support/plugin-home.js';
import { AUTH, TEST_TOKEN } from '../support/token.js';
import { testOwnCode } from '../../testkit/dist.js';

const SECRET = 'relay-secret-for-tests';

interface RelaySetup {
  engine: Engine;
  home: string;
  /** The status the fake relay answers the plugin's posts with (default 204): an answer is kept only when it is 2xx. */
  relayStatus: { code: number };
  /** The fake relay's test-only fetch allowance, `127.0.0.1:<port>`. */
  relayAllow: string;
  model: FakeModelServer;
  /** The answers the plugin posted to the fake relay. */
  answers: any[];
  /** The API server's origin, `http://127.0.0.1:<port>`. */
  origin: string;
  /** POST a message to the relay adapter's route, signed with the right secret unless `signature` is given. */
  send(message: Record<string, unknown>, signature?: string): Promise<{ status: number; json: any }>;
  status(): Promise<any>;
}

interface RelayOptions {
  /** Add `net = ["127.0.0.1"]` to the plugin's permissions (so its answers may reach the fake relay). */
  net?: boolean;
  /** Grant the plugin before the adapters start (default true). */
  grant?: boolean;
  /** Change the copied adapter module before the plugin is found. */
  editAdapter?: (source: string) => string;
  /** The section's `adapter` key (default "relay"). */
  adapter?: string;
  pluginCallTimeoutMs?: number;
  /** Pauses between reply attempts, ms (default: the test helper's [20, 40]). */
  replyBackoffMs?: number[];
}

async function relaySetup(t: TestContext, options: RelayOptions = {}): Promise<RelaySetup> {
  const answers: any[] = [];
  const relayStatus = { code: 204 };
  const relay = await serveHttp(t, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (relayStatus.code < 300) answers.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(relayStatus.code).end();
    });
  });
  const home = tempDir(t, 'kw-plugin-adapter-');
  const docs = fs.realpathSync(tempDir(t, 'kw-plugin-docs-'));
  const manifest = installExample(home, docs);
  if (options.net === true) editManifest(manifest, `fs.read = [${JSON.stringify(docs)}]`, `fs.read = [${JSON.stringify(docs)}]\nnet = ["127.0.0.1"]`);
  if (options.editAdapter !== undefined) {
    const file = path.join(path.dirname(manifest), 'adapter.js');
    fs.writeFileSync(file, options.editAdapter(fs.readFileSync(file, 'utf8')));
  }
  const config = `[adapters.relay]\ntype = "plugin"\nplugin = "hello"\nadapter = "${options.adapter ?? 'relay'}"\nenabled = true\nagent = "assistant"\nsecret = "${SECRET}"\nreply_url = "${relay.origin}/answers"\n`;
  const s = await adapterSetup(t, echoScript, config, {
    testOnlyFetchAllow: [relay.allow],
    ...(options.pluginCallTimeoutMs === undefined ? {} : { pluginCallTimeoutMs: options.pluginCallTimeoutMs }),
    ...(options.replyBackoffMs === undefined ? {} : { adapterReplyBackoffMs: options.replyBackoffMs }),
  }, home);
  if (options.grant !== false) s.engine.plugins.grant('hello', 'ann (test)');
  await s.engine.adapters.start();
  const port = await freePort();
  const api = await buildApi(s.engine, { token: TEST_TOKEN, port, onInternalError: (err) => t.diagnostic(`internal: ${String(err)}`) });
  await api.app.listen({ host: '127.0.0.1', port });
  cleanups(t)(() => api.app.close());
  const origin = `http://127.0.0.1:${port}`;
  return {
    engine: s.engine, home, relayStatus, relayAllow: relay.allow, model: s.server, answers, origin,
    async send(message, signature) {
      const body = JSON.stringify(message);
      const ts = String(Math.floor(Date.now() / 1000));
      const sig = signature ?? createHmac('sha256', SECRET).update(`${ts}.${body}`).digest('hex');
      // No bearer token: the plugin's signature is the route's check.
      const res = await fetch(`${origin}/adapters/plugin/relay`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-relay-timestamp': ts, 'x-relay-signature': sig } });
      return { status: res.status, json: await res.json() };
    },
    async status() {
      const res = await fetch(`${origin}/api/adapters`, { headers: AUTH });
      return ((await res.json()) as { adapters: any[] }).adapters.find((a) => a.name === 'relay');
    },
  };
}

test('a message through the example plugin\'s relay adapter is recorded, answered by a chat turn, and the answer delivered through the plugin; a redelivery is deduplicated and a bad signature records nothing', async (t) => {
  const s = await relaySetup(t, { net: true });
  assert.equal((await s.status()).state, 'running');

  const first = await s.send({ id: 'm-1', text: 'hello there', conversation: 'ops', from: 'ci' });
  assert.equal(first.status, 200);
  assert.equal(first.json.ok, true);
  assert.deepEqual(first.json.duplicates, [false]);
  const [id] = first.json.records as number[];
  // Recorded by the host before the channel was answered.
  const record = s.engine.adapters.record(id!);
  assert.equal(record?.adapter, 'relay');
  assert.equal(record?.deliveryId, 'm-1');
  assert.equal(record?.conversation, 'ops');
  assert.equal(record?.from, 'ci');
  assert.equal(record?.text, 'hello there');

  await waitFor(() => s.answers.length === 1, 'the answer posted to the relay by the plugin');
  assert.deepEqual(s.answers[0], { inReplyTo: 'm-1', conversation: 'ops', text: 'echo: hello there' });
  await waitFor(() => s.engine.adapters.record(id!)?.state === 'replied', 'the record replied');
  assert.equal(s.engine.adapters.record(id!)?.answer, 'echo: hello there');
  const calls = s.model.requests.length;

  const again = await s.send({ id: 'm-1', text: 'hello there', conversation: 'ops', from: 'ci' });
  assert.equal(again.status, 200);
  assert.deepEqual(again.json.records, [id]);
  assert.deepEqual(again.json.duplicates, [true]);
  assert.equal(s.model.requests.length, calls, 'no second turn');
  assert.equal(s.answers.length, 1);

  const forged = await s.send({ id: 'm-2', text: 'let me in' }, '0'.repeat(64));
  assert.equal(forged.status, 401);
  assert.deepEqual(forged.json, { ok: false, error: 'the signature does not match' });
  assert.equal(s.engine.adapters.record(id! + 1), undefined, 'nothing recorded for a refusal');

  const status = await s.status();
  assert.equal(status.type, 'plugin');
  assert.equal(status.errorCount, 0);
  assert.equal(status.settings.secret, '(set)', 'the secret is never shown back');
});

test('without a net grant the plugin cannot send the answer: refused as KW_ERR_PLUGIN_PERMISSION, the message failed with KW_ERR_ADAPTER_REPLY, and the adapter status says why', async (t) => {
  const s = await relaySetup(t, { net: false });
  const sent = await s.send({ id: 'n-1', text: 'anyone?' });
  assert.equal(sent.status, 200);
  const [id] = sent.json.records as number[];
  await waitFor(() => s.engine.adapters.record(id!)?.state === 'failed', 'the reply given up');
  const record = s.engine.adapters.record(id!)!;
  assert.equal(record.answer, 'echo: anyone?', 'the turn itself was answered');
  assert.match(record.lastError ?? '', /KW_ERR_ADAPTER_REPLY|failed 3 times/);
  assert.match(record.lastError ?? '', /plugin hello may not fetch http:\/\/127\.0\.0\.1:\d+ \(net not granted\)/);
  assert.equal(s.answers.length, 0, 'nothing reached the relay');
  const status = await s.status();
  assert.equal(status.state, 'running');
  assert.ok(status.errorCount >= 1);
  assert.match(status.lastError, /may not fetch http:\/\/127\.0\.0\.1:\d+ \(net not granted\)/);
  // The plugin's own record of the refusal.
  const plugin = s.engine.plugins.get('hello');
  assert.ok(plugin.failures.some((f) => f.code === 'KW_ERR_PLUGIN_PERMISSION'));
});

test('a plugin not granted leaves its adapter error with the reason, and its route refuses with KW_ERR_ADAPTER_DISABLED; once granted and enabled again it runs', async (t) => {
  const s = await relaySetup(t, { grant: false, net: true });
  const status = await s.status();
  assert.equal(status.state, 'error');
  assert.match(status.lastError, /plugin hello is not granted/);
  const refused = await s.send({ id: 'g-1', text: 'hi' });
  assert.equal(refused.status, 409);
  assert.equal(refused.json.error.code, 'KW_ERR_ADAPTER_DISABLED');
  assert.equal(s.engine.adapters.record(1), undefined);

  s.engine.plugins.grant('hello', 'ann (test)');
  await s.engine.adapters.enable('relay', 'ann (test)');
  assert.equal((await s.status()).state, 'running');
  const ok = await s.send({ id: 'g-2', text: 'now?' });
  assert.equal(ok.status, 200);
  await waitFor(() => s.answers.length === 1, 'the answer delivered');

  // A revoke takes effect at the next request: refused, nothing recorded, and the status says why.
  s.engine.plugins.revoke('hello', 'ann (test)');
  const revoked = await s.send({ id: 'g-3', text: 'and now?' });
  assert.equal(revoked.status, 409);
  assert.equal(revoked.json.error.code, 'KW_ERR_PLUGIN_NOT_GRANTED');
  assert.equal(s.engine.adapters.record((ok.json.records as number[])[0]! + 1), undefined);
  assert.match((await s.status()).lastError, /plugin hello is not granted/);
});

test('an adapter the plugin does not declare leaves the section error with KW_ERR_PLUGIN_ADAPTER naming what it declares', async (t) => {
  const s = await relaySetup(t, { adapter: 'matrix' });
  const status = await s.status();
  assert.equal(status.state, 'error');
  assert.match(status.lastError, /plugin hello declares no adapter "matrix" in its kowalski-plugin\.toml \(it declares relay\)/);
});

test('a plugin whose receive does not answer in time: 504 KW_ERR_PLUGIN_TIMEOUT, its process killed, counted on the adapter; the next message is answered', async (t) => {
  const s = await relaySetup(t, {
    net: true,
    pluginCallTimeoutMs: 8000,
    editAdapter: (source) => source.replace('async receive({ headers, body, options }) {', 'async receive({ headers, body, options }) {\n    if (body.includes(\'"hang me"\')) await new Promise(() => {});'),
  });
  // Its process started and answered once, so the time limit is the call's alone.
  assert.equal((await s.send({ id: 'h-0', text: 'warm up' })).status, 200);
  const hung = await s.send({ id: 'h-1', text: 'hang me' });
  assert.equal(hung.status, 504);
  assert.equal(hung.json.error.code, 'KW_ERR_PLUGIN_TIMEOUT');
  assert.doesNotMatch(hung.json.error.message, /8000/);
  const status = await s.status();
  assert.equal(status.state, 'running');
  assert.match(status.lastError, /plugin hello: adapter relay's receive did not answer within 8000 ms/);
  const next = await s.send({ id: 'h-2', text: 'awake?' });
  assert.equal(next.status, 200);
  await waitFor(() => s.answers.some((a) => a.inReplyTo === 'h-2'), 'the next answer delivered');
});

test('a plugin whose process crashes during receive: 502 KW_ERR_PLUGIN_CRASHED, counted on the adapter, nothing recorded, and the server goes on with the next message', async (t) => {
  const s = await relaySetup(t, {
    net: true,
    editAdapter: (source) => source.replace('async receive({ headers, body, options }) {', 'async receive({ headers, body, options }) {\n    if (body.includes(\'"crash me"\')) process.exit(3);'),
  });
  const crashed = await s.send({ id: 'c-1', text: 'crash me' });
  assert.equal(crashed.status, 502);
  assert.equal(crashed.json.error.code, 'KW_ERR_PLUGIN_CRASHED');
  // The sender learns the code only; the operator sees why.
  assert.equal(crashed.json.error.message, 'the plugin adapter relay could not take this request (KW_ERR_PLUGIN_CRASHED); the operator sees why in kowalski adapters, or the app\'s Adapters screen');
  assert.equal(s.engine.adapters.record(1), undefined, 'nothing recorded');
  const status = await s.status();
  assert.equal(status.state, 'running');
  assert.equal(status.errorCount, 1);
  assert.match(status.lastError, /plugin hello: its process exited with code 3 during a call to adapter relay's receive/);
  // The server and the engine go on; the plugin's process starts again at the next request.
  const health = await fetch(`${s.origin}/api/health`, { headers: AUTH });
  assert.equal(health.status, 200);
  const next = await s.send({ id: 'c-2', text: 'still there?' });
  assert.equal(next.status, 200);
  await waitFor(() => s.answers.length === 1, 'the next answer delivered');
  assert.deepEqual(s.answers[0], { inReplyTo: 'c-2', conversation: 'c-2', text: 'echo: still there?' });
  assert.equal(s.engine.plugins.get('hello').process?.restarts, 1);
});

test('an answer the plugin could not send yet is sent through it after a restart of the engine, without asking the agent again', async (t) => {
  // The next attempt would wait a minute: the engine is closed before it.
  const s = await relaySetup(t, { net: true, replyBackoffMs: [60_000] });
  s.relayStatus.code = 503;
  const sent = await s.send({ id: 'r-1', text: 'are you durable?' });
  const [id] = sent.json.records as number[];
  await waitFor(() => (s.engine.adapters.record(id!)?.replyAttempts ?? 0) >= 1, 'the first send refused by the relay');
  assert.equal(s.engine.adapters.record(id!)?.state, 'answered');
  assert.match(s.engine.adapters.record(id!)?.lastError ?? '', /the relay answered 503/);
  const modelCalls = s.model.requests.length;
  await s.engine.close();

  s.relayStatus.code = 204;
  const again = await createEngine({ ownCode: testOwnCode(), dataDir: s.home, testOnlyFetchAllow: [s.relayAllow] });
  cleanups(t)(() => again.close());
  await again.adapters.start();
  await waitFor(() => s.answers.length === 1, 'the recorded answer sent after the restart');
  assert.deepEqual(s.answers[0], { inReplyTo: 'r-1', conversation: 'r-1', text: 'echo: are you durable?' });
  await waitFor(() => again.adapters.record(id!)?.state === 'replied', 'the record replied');
  assert.equal(s.model.requests.length, modelCalls, 'the agent was not asked again');
});
