/**
 * Webhook triggers over real HTTP: GitHub's published signature example, Standard
 * Webhooks signatures with their timestamp, refusals that start nothing (bad or missing
 * signature, stale timestamp, unknown horde or trigger, switched off, too big), a
 * redelivery answered with the run it started, 100 concurrent deliveries each answered
 * only after its run is committed, and a server killed between the commit and the
 * answer: the redelivery after the restart starts no second run. Deliveries arriving
 * together (written at once by a sender process on connections the server has accepted)
 * share commits, so do those of a burst that reaches the engine before its first read of
 * the catalog; a lone one is not held, and none stays counted as on its way.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { buildApi } from '../../api/index.js';
import { DEFAULT_CONFIG, createEngine } from '../../engine/index.js';
import type { Engine } from '../../engine/index.js';
import { REPO, startCli } from '../../testkit/cli.js';
import { cliArgs, nodeArgsFor } from '../../testkit/dist.js';
import { TEST_KINDS, writeHorde } from '../support/engine.js';
import { freePort } from '../../testkit/free-port.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';
import { childStoreEnv, testStoreConfig } from '../../testkit/pg-store.js';
import { readCommitted, readCommittedAt } from '../support/store-reader.js';
import { AUTH, TEST_TOKEN, writeTestToken } from '../support/token.js';
import { testOwnCode } from '../../testkit/dist.js';

const GITHUB_SECRET = "It's a Secret to Everybody";
const GITHUB_SIGNATURE = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';
const STANDARD_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const HORDE = `id = "hooked"
pipeline = ["work"]
[[triggers]]
name = "plain"
kind = "webhook"
overlap = "parallel"
[[triggers]]
name = "gh"
kind = "webhook"
secret_env = "KW_TEST_GH_SECRET"
overlap = "parallel"
[[triggers]]
name = "std"
kind = "webhook"
secret_env = "KW_TEST_STD_SECRET"
overlap = "parallel"
[[triggers]]
name = "off"
kind = "webhook"
enabled = false
[[triggers]]
name = "clock"
kind = "cron"
schedule = "0 0 1 1 *"`;

function withoutTestContext(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out = { ...env };
  delete out.NODE_TEST_CONTEXT;
  return out;
}

function writeHooked(home: string): void {
  writeHorde(path.join(home, 'hordes', 'hooked'), HORDE, { work: 'kind = "ingest"' });
}

interface Served {
  engine: Engine;
  url: string;
  /** Connections the server has accepted since it started. */
  accepted(): number;
}

async function serve(t: TestContext, more: (home: string) => void = () => {}): Promise<Served> {
  process.env.KW_TEST_GH_SECRET = GITHUB_SECRET;
  process.env.KW_TEST_STD_SECRET = STANDARD_SECRET;
  const home = tempDir(t, 'kw-hooks-');
  writeHooked(home);
  more(home);
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home, config: { ...DEFAULT_CONFIG, store: await testStoreConfig(home) }, extraStepKinds: TEST_KINDS });
  cleanups(t)(() => engine.close());
  const port = await freePort();
  const { app } = await buildApi(engine, { token: TEST_TOKEN, port });
  await app.listen({ host: '127.0.0.1', port });
  cleanups(t)(() => app.close());
  let accepted = 0;
  app.server.on('connection', () => void accepted++);
  return { engine, url: `http://127.0.0.1:${port}`, accepted: () => accepted };
}

async function post(url: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  const res = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...AUTH, ...headers } });
  return { status: res.status, json: await res.json() };
}

function standardHeaders(id: string, body: string, nowSecs: number): Record<string, string> {
  const key = Buffer.from(STANDARD_SECRET.slice('whsec_'.length), 'base64');
  const signature = crypto.createHmac('sha256', key).update(`${id}.${nowSecs}.${body}`).digest('base64');
  return { 'webhook-id': id, 'webhook-timestamp': String(nowSecs), 'webhook-signature': `v1,${signature}` };
}

test('GitHub\'s published example is accepted: 202 with the run id, answered after the commit; a redelivery gets the same run and starts none', async (t) => {
  const s = await serve(t);
  const first = await post(`${s.url}/hooks/hooked/gh`, 'Hello, World!', { 'x-hub-signature-256': GITHUB_SIGNATURE, 'x-github-delivery': 'delivery-1', 'content-type': 'text/plain' });
  assert.equal(first.status, 202, JSON.stringify(first.json));
  assert.equal(first.json.duplicate, false);
  const row = s.engine.getRunRow(first.json.runId);
  assert.equal(row.provenance, 'trigger:gh');
  assert.equal(row.input.trigger_payload, 'Hello, World!');
  assert.equal(row.input.trigger_delivery, 'delivery-1');
  const again = await post(`${s.url}/hooks/hooked/gh`, 'Hello, World!', { 'x-hub-signature-256': GITHUB_SIGNATURE, 'x-github-delivery': 'delivery-1', 'content-type': 'text/plain' });
  assert.equal(again.status, 200);
  assert.deepEqual([again.json.runId, again.json.duplicate], [first.json.runId, true]);
  assert.equal(s.engine.listRuns({ horde: 'hooked' }).length, 1);
});

test('refusals start nothing: wrong and missing signatures, a stale timestamp, unknown horde or trigger, a switched-off or non-webhook trigger, a body over 1 MiB', async (t) => {
  const s = await serve(t);
  const now = Math.floor(Date.now() / 1000);
  const cases: Array<[string, string, Record<string, string>, number, string]> = [
    ['/hooks/hooked/gh', 'Hello, World!', { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` }, 401, 'KW_ERR_WEBHOOK_SIGNATURE'],
    ['/hooks/hooked/gh', 'Hello, World?', { 'x-hub-signature-256': GITHUB_SIGNATURE }, 401, 'KW_ERR_WEBHOOK_SIGNATURE'],
    ['/hooks/hooked/gh', 'Hello, World!', {}, 401, 'KW_ERR_WEBHOOK_SIGNATURE'],
    ['/hooks/hooked/std', '{"a":1}', standardHeaders('msg_1', '{"a":1}', now - 3600), 401, 'KW_ERR_WEBHOOK_STALE'],
    ['/hooks/hooked/std', '{"a":1}', standardHeaders('msg_1', '{"a":2}', now), 401, 'KW_ERR_WEBHOOK_SIGNATURE'],
    ['/hooks/nobody/plain', '{}', {}, 404, 'KW_ERR_HORDE_NOT_FOUND'],
    ['/hooks/hooked/nothing', '{}', {}, 404, 'KW_ERR_TRIGGER_NOT_FOUND'],
    ['/hooks/hooked/clock', '{}', {}, 404, 'KW_ERR_TRIGGER_NOT_FOUND'],
    ['/hooks/hooked/off', '{}', {}, 409, 'KW_ERR_TRIGGER_DISABLED'],
    ['/hooks/hooked/plain', 'x'.repeat(1024 * 1024 + 1), {}, 413, 'KW_ERR_BODY_TOO_LARGE'],
  ];
  for (const [route, body, headers, status, code] of cases) {
    const r = await post(`${s.url}${route}`, body, headers);
    assert.deepEqual([r.status, r.json.error?.code], [status, code], `${route} ${JSON.stringify(headers)}: ${JSON.stringify(r.json)}`);
  }
  assert.equal(s.engine.listRuns().length, 0);
  // The same Standard Webhooks delivery, fresh, is accepted.
  const ok = await post(`${s.url}/hooks/hooked/std`, '{"a":1}', standardHeaders('msg_1', '{"a":1}', now));
  assert.equal(ok.status, 202, JSON.stringify(ok.json));
  assert.equal(s.engine.getRunRow(ok.json.runId).input.trigger_delivery, 'msg_1');
});

test('the API token: a trigger with a secret takes signed deliveries without it; a trigger without a secret needs it', async (t) => {
  const s = await serve(t);
  const send = async (route: string, body: string, headers: Record<string, string>): Promise<{ status: number; json: any }> => {
    const res = await fetch(`${s.url}${route}`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
    return { status: res.status, json: await res.json() };
  };
  const signed = await send('/hooks/hooked/gh', 'Hello, World!', { 'x-hub-signature-256': GITHUB_SIGNATURE, 'x-github-delivery': 'no-token', 'content-type': 'text/plain' });
  assert.equal(signed.status, 202, JSON.stringify(signed.json));
  const unsigned = await send('/hooks/hooked/gh', 'Hello, World!', {});
  assert.deepEqual([unsigned.status, unsigned.json.error.code], [401, 'KW_ERR_WEBHOOK_SIGNATURE'], 'a secret still needs its signature');
  for (const headers of [{}, { authorization: 'Bearer wrong-token' }] as Array<Record<string, string>>) {
    const r = await send('/hooks/hooked/plain', '{}', headers);
    assert.deepEqual([r.status, r.json.error.code], [401, 'KW_ERR_UNAUTHORIZED'], JSON.stringify(headers));
    assert.match(r.json.error.message, /a delivery to hooked\/plain needs a valid signature, or the API token/);
  }
  // Without the token, a stranger learns nothing of what exists or is switched on: one 401 for all.
  for (const route of ['/hooks/nobody/plain', '/hooks/hooked/nothing', '/hooks/hooked/clock', '/hooks/hooked/off', '/hooks/hooked/plain']) {
    const r = await send(route, '{}', {});
    assert.deepEqual([r.status, r.json.error.code], [401, 'KW_ERR_UNAUTHORIZED'], route);
  }
  assert.equal((await send('/hooks/hooked/plain', '{}', AUTH)).status, 202);
  assert.equal(s.engine.listRuns({ horde: 'hooked' }).length, 2, 'only the signed and the token-bearing deliveries started runs');
});

test('100 concurrent deliveries: 100 runs, each acknowledged only once its run is committed', async (t) => {
  const s = await serve(t);
  const answers = await Promise.all(Array.from({ length: 100 }, async (_, i) => {
    const r = await post(`${s.url}/hooks/hooked/plain`, JSON.stringify({ n: i }), { 'x-request-id': `req-${i}` });
    // At the moment the answer arrives, its run is on disk.
    const committed = r.status === 202 ? s.engine.getRunRow(r.json.runId).input.trigger_delivery : undefined;
    return { status: r.status, runId: r.json.runId as string, committed };
  }));
  assert.deepEqual(answers.map((a) => a.status), Array(100).fill(202));
  assert.equal(new Set(answers.map((a) => a.runId)).size, 100);
  assert.deepEqual(answers.map((a) => a.committed).sort(), Array.from({ length: 100 }, (_, i) => `req-${i}`).sort());
  assert.equal(s.engine.listRuns({ horde: 'hooked', limit: 500 }).length, 100);
});

test('killed with SIGKILL between the commit and the answer: the redelivery after the restart gets the same run, and no second run exists', async (t) => {
  const home = tempDir(t, 'kw-hooks-kill-');
  writeHooked(home);
  writeTestToken(home);
  const port = await freePort();
  const store = await childStoreEnv(home);
  // The first commit of this fresh data directory is the delivery's run: die right after it.
  const doomed = spawn(process.execPath, [...cliArgs(), 'serve', '--no-open', '--port', String(port)], {
    cwd: REPO, env: { ...withoutTestContext(process.env), KOWALSKI_HOME: home, ...store, KOWALSKI_CRASH_AT: 'after-commit:1' }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  const exited = once(doomed, 'exit');
  cleanups(t)(() => {
    if (doomed.exitCode === null && doomed.signalCode === null) doomed.kill('SIGKILL');
  });
  let err = '';
  await new Promise<void>((resolve, reject) => {
    doomed.stderr.on('data', (c: Buffer) => {
      err += c.toString();
      if (/kowalski serving/.test(err)) resolve();
    });
    doomed.once('exit', () => reject(new Error(`the server exited early:\n${err}`)));
  });
  const delivery = { 'x-github-delivery': 'once-only' };
  const died = await fetch(`http://127.0.0.1:${port}/hooks/hooked/plain`, { method: 'POST', body: '{"n":1}', headers: { ...AUTH, ...delivery } }).then(async (r) => `answered ${r.status} ${await r.text()}`, () => 'no answer');
  assert.equal(died, 'no answer', 'the server died before answering');
  const [code, signal] = await exited;
  assert.equal(signal, 'SIGKILL', `the server exited with code ${String(code)}:\n${err}`);

  const server = startCli(home, ['serve', '--no-open', '--port', String(port)], { limitMs: 120_000, env: store });
  cleanups(t)(async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  });
  await server.stderrLine(/kowalski serving/);
  const again = await post(`http://127.0.0.1:${port}/hooks/hooked/plain`, '{"n":1}', delivery);
  assert.equal(again.status, 200, JSON.stringify(again.json));
  assert.equal(again.json.duplicate, true);
  const runs = JSON.parse(await (await fetch(`http://127.0.0.1:${port}/api/runs?horde=hooked`, { headers: AUTH })).text()) as { runs: Array<{ id: string }> };
  assert.deepEqual(runs.runs.map((r) => r.id), [again.json.runId]);
  assert.deepEqual((await readCommittedAt<{ id: string }>(home, 'SELECT id FROM runs')).map((r) => r.id), [again.json.runId], 'the run is in the store the test chose');
  assert.ok(fs.existsSync(path.join(home, 'kowalski.sqlite')));
});

/** Resolves once no delivery is counted as on its way (each is let go when its response closes); bounded. */
async function nothingOnItsWay(engine: Engine): Promise<void> {
  const deadline = Date.now() + 5000;
  while (engine.intake.inProgress > 0 && Date.now() < deadline) await new Promise((r) => setImmediate(r));
  assert.equal(engine.intake.inProgress, 0, 'deliveries still counted as on their way');
}

/** A horde whose one step waits for approval: a delivery's run commits once (created and parked), so commits count creations alone. */
function writeGated(home: string): void {
  writeHorde(path.join(home, 'hordes', 'gated'), 'id = "gated"\npipeline = ["check"]\n[[triggers]]\nname = "in"\nkind = "webhook"\noverlap = "parallel"', { check: 'kind = "verify"\nverify_command = "true"' });
}


/**
 * `count` deliveries to `route` from a sender process of its own (testkit/burst-client.ts),
 * written in one turn on connections the server has all accepted (Node accepts one new
 * connection per turn of its event loop, so a delivery on a connection not yet accepted
 * arrives later): they arrive together. `go()` runs just before they are written.
 */
async function burst(t: TestContext, s: Served, route: string, count: number, go: () => void): Promise<Array<{ status: number; body: any }>> {
  const open = s.accepted();
  const child = spawn(process.execPath, [...nodeArgsFor('testkit/burst-client.ts'), new URL(s.url).port, route, String(count), AUTH.authorization], { stdio: ['pipe', 'pipe', 'pipe'] });
  cleanups(t)(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  let out = '';
  let err = '';
  child.stderr.on('data', (c: Buffer) => void (err += c.toString()));
  const exited = once(child, 'exit');
  const ready = new Promise<void>((resolve) => {
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.startsWith('READY\n')) resolve();
    });
  });
  if (await Promise.race([ready.then(() => false), exited.then(() => true)])) assert.fail(`the sender exited before it was ready:\n${err}`);
  const deadline = Date.now() + 10_000;
  while (s.accepted() < open + count && Date.now() < deadline) await new Promise((r) => setImmediate(r));
  assert.equal(s.accepted(), open + count, 'the server accepted every connection of the sender');
  go();
  child.stdin.write('go\n');
  const [code] = await exited;
  assert.equal(code, 0, `the sender failed:\n${err}`);
  return JSON.parse(out.slice('READY\n'.length)) as Array<{ status: number; body: any }>;
}

test('deliveries arriving together share commits; each is still answered after its own commit', async (t) => {
  const s = await serve(t, writeGated);
  await post(`${s.url}/hooks/gated/in`, '{}', { 'x-request-id': 'warm' });
  let before = { ...s.engine.stats };
  const answers = await burst(t, s, '/hooks/gated/in', 200, () => {
    before = { ...s.engine.stats };
  });
  assert.deepEqual(answers.map((a) => a.status), Array(200).fill(202), JSON.stringify(answers.find((a) => a.status !== 202)));
  const onDisk = await readCommitted<{ id: string; input: string }>(s.engine, "SELECT id, input FROM runs WHERE horde_id = 'gated'");
  const deliveryOf = new Map(onDisk.map((r) => [r.id, JSON.parse(r.input).trigger_delivery as string]));
  assert.deepEqual(answers.map((a) => deliveryOf.get(a.body.runId)), Array.from({ length: 200 }, (_, i) => `burst-${i}`), 'each answer names its own committed run');
  // Each run commits once here (created, and parked at its approval): the commits are the creations'.
  const commits = s.engine.stats.commits - before.commits;
  assert.equal(s.engine.stats.batches - before.batches, 200);
  assert.ok(commits <= 20, `200 deliveries arriving together took ${commits} commits`);
  await nothingOnItsWay(s.engine);
});

test('a burst at an engine that has not read its hordes yet reads them once: the runs share commits', async (t) => {
  const s = await serve(t, writeGated);
  let before = { ...s.engine.stats };
  const answers = await burst(t, s, '/hooks/gated/in', 50, () => {
    before = { ...s.engine.stats };
  });
  assert.deepEqual(answers.map((a) => a.status), Array(50).fill(202), JSON.stringify(answers.find((a) => a.status !== 202)));
  // The deliveries wait for one read of the catalog, then their runs are created in the same turn.
  const commits = s.engine.stats.commits - before.commits;
  assert.ok(commits <= 10, `50 deliveries took ${commits} commits`);
  await nothingOnItsWay(s.engine);
});

test('a lone delivery is not held: its commit waits no turn for others', async (t) => {
  const s = await serve(t);
  for (let i = 0; i < 5; i++) {
    const r = await post(`${s.url}/hooks/hooked/plain`, '{}', { 'x-request-id': `lone-${i}` });
    assert.equal(r.status, 202);
    await s.engine.waitForRun(r.json.runId);
    await nothingOnItsWay(s.engine);
  }
  assert.deepEqual(s.engine.intake.stats, { waits: 0, held: 0 });
});

test('refused, oversized and abandoned deliveries are not counted as on their way afterwards', async (t) => {
  const s = await serve(t);
  assert.equal((await post(`${s.url}/hooks/hooked/gh`, 'x', {})).status, 401);
  assert.equal((await post(`${s.url}/hooks/hooked/off`, '{}')).status, 409);
  assert.equal((await post(`${s.url}/hooks/hooked/plain`, 'x'.repeat(1024 * 1024 + 1))).status, 413);
  // Headers and half a body, then the client goes away.
  const { port } = new URL(s.url);
  const socket = net.connect(Number(port), '127.0.0.1');
  await once(socket, 'connect');
  socket.write(`POST /hooks/hooked/plain HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"half":`);
  const deadline = Date.now() + 5000;
  while (s.engine.intake.inProgress === 0 && Date.now() < deadline) await new Promise((r) => setImmediate(r));
  assert.equal(s.engine.intake.inProgress, 1, 'the half-sent delivery is on its way');
  socket.destroy();
  await nothingOnItsWay(s.engine);
  assert.equal(s.engine.listRuns().length, 0);
});
