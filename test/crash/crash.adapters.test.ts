/**
 * Durability of adapters: a real `kowalski serve` takes a signed webhook delivery (its answer
 * goes to a callback), is SIGKILLed at a named crash point, and is started again. The ledgers
 * are outside the server: the fake model's requests and the callback's posts. After the
 * restart the answer is posted exactly once, and the model asked once in all (the turn's
 * answer was recorded before the kill) — or, killed before the turn began, once after it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { test } from 'node:test';
import { signedHeaders } from '../../engine/index.js';
import { echoScript } from '../support/adapters.js';
import { cleanups } from '../../testkit/cleanup.js';
import { cliSandbox, outputOf, startCli } from '../../testkit/cli.js';
import type { RunningCli } from '../../testkit/cli.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import { waitFor } from '../../testkit/wait.js';
import { AUTH, writeTestToken } from '../support/token.js';

const SECRET = 'crash-test-secret-0123456789';

async function callbackLedger(t: TestContext): Promise<{ url: string; posts: string[] }> {
  const posts: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      posts.push(Buffer.concat(chunks).toString('utf8'));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups(t)(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/answers`, posts };
}

/** `kowalski serve` on the home, once its adapter runs: its base URL. */
async function serve(t: TestContext, home: string, env: NodeJS.ProcessEnv = {}): Promise<{ cli: RunningCli; url: string }> {
  writeTestToken(home);
  const cli = startCli(home, ['serve', '--no-open', '--port', '0'], { limitMs: 180_000, env });
  cleanups(t)(async () => {
    if (cli.child.exitCode === null && cli.child.signalCode === null) cli.child.kill('SIGTERM');
    await cli.exited.catch(() => undefined);
  });
  const line = await cli.stderrLine(/^kowalski serving .* at (http:\S+)/);
  const url = /at (http:\S+)/.exec(line)![1]!;
  await waitFor(async () => {
    const res = await fetch(`${url}api/adapters`, { headers: AUTH });
    const body = (await res.json()) as { adapters: Array<{ state: string }> };
    return body.adapters[0]?.state === 'running';
  }, 'the webhook adapter running', 60_000);
  return { cli, url };
}

function deliver(url: string, delivery: string, text: string): Promise<Response> {
  const raw = Buffer.from(JSON.stringify({ text, conversation: 'crash' }));
  return fetch(`${url}adapters/webhook/hook`, { method: 'POST', body: raw, headers: { ...AUTH, 'content-type': 'application/json', ...signedHeaders(SECRET, delivery, raw, Date.now()) } });
}

for (const point of ['adapter-before-reply', 'adapter-after-accept'] as const) {
  test(`SIGKILL at ${point}: after the restart the answer is posted once, the model asked once`, async (t) => {
    const model = await startFakeOllama(echoScript);
    cleanups(t)(() => model.close());
    const callback = await callbackLedger(t);
    const { home } = cliSandbox(t);
    fs.mkdirSync(home, { recursive: true });
    fs.writeFileSync(path.join(home, 'config.toml'), `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${model.url}"\n`
      + `[adapters.hook]\ntype = "webhook"\nenabled = true\nsecret = "${SECRET}"\ncallback_url = "${callback.url}"\n`);

    const first = await serve(t, home, { KOWALSKI_CRASH_AT: `${point}:1` });
    const answered = await deliver(first.url, 'crash-1', 'survive this').then((r) => r.status, () => 'cut');
    // Killed after the record was committed: acknowledged (202) before the turn, or cut before the answer.
    assert.ok(point === 'adapter-before-reply' ? answered === 202 : answered === 'cut' || answered === 202, String(answered));
    const died = await first.cli.exited;
    assert.equal(died.signal, 'SIGKILL', outputOf(died));
    assert.equal(callback.posts.length, 0, 'nothing posted before the kill');
    assert.equal(model.requests.length, point === 'adapter-before-reply' ? 1 : 0);

    const second = await serve(t, home);
    await waitFor(() => callback.posts.length >= 1, 'the answer posted after the restart', 60_000);
    assert.equal(JSON.parse(callback.posts[0]!).text, 'echo: survive this');
    // The same delivery again: the same record, settled; nothing more is asked or posted.
    const replay = await deliver(second.url, 'crash-1', 'survive this');
    const body = (await replay.json()) as { duplicate: boolean; state: string };
    assert.deepEqual([replay.status, body.duplicate, body.state], [202, true, 'replied']);
    second.cli.child.kill('SIGTERM');
    const stopped = await second.cli.exited;
    assert.equal(stopped.code, 0, outputOf(stopped));
    assert.equal(callback.posts.length, 1, 'posted exactly once');
    assert.equal(model.requests.length, 1, 'the model asked once in all');
  });
}
