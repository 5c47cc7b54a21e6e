/**
 * Adapter tests: an engine on a temp data dir whose model is a scripted fake Ollama, with a
 * capture adapter (type `email`, standing for any channel) that hands the test its host and
 * records every reply; its start and replies can be told to fail or hang.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { createEngine } from '../../engine/index.js';
import type { AdapterDefinition, AdapterHost, Engine, EngineOptions, InboundRecord } from '../../engine/index.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeModelServer, FakeScript } from '../../testkit/fake-models.js';
import { cleanups } from '../../testkit/cleanup.js';
import { startCli } from '../../testkit/cli.js';
import type { RunningCli } from '../../testkit/cli.js';
import { testOwnCode } from '../../testkit/dist.js';
import { waitFor } from '../../testkit/wait.js';
import { AUTH, writeTestToken } from './token.js';

export interface Capture {
  definition: AdapterDefinition<unknown>;
  /** The host each started adapter was given, by the `name` setting. */
  hosts: Map<string, AdapterHost>;
  replies: Array<{ record: InboundRecord; answer: string }>;
  /** Reply attempts that threw. */
  refused: number;
  /** The next this many replies throw. */
  failReplies: number;
  /** Starts throw this, or hang when `hang`. */
  startError?: string;
  hang?: boolean;
  stops: number;
}

export function captureAdapter(): Capture {
  const capture: Capture = {
    hosts: new Map(), replies: [], refused: 0, failReplies: 0, stops: 0,
    definition: {
      type: 'email',
      secretKeys: ['password'],
      settings: (raw, _env, name) => ({ name, password: raw.password }),
      async start(settings, host) {
        if (capture.hang === true) await new Promise(() => undefined);
        if (capture.startError !== undefined) throw new Error(capture.startError);
        capture.hosts.set((settings as { name: string }).name, host);
        return {
          async reply(record, answer) {
            if (capture.failReplies > 0) {
              capture.failReplies -= 1;
              capture.refused += 1;
              throw new Error('the channel is down');
            }
            capture.replies.push({ record, answer });
          },
          stop: async () => void (capture.stops += 1),
        };
      },
    },
  };
  return capture;
}

/** The text of the last user message a fake model request carries. */
export function lastUserText(body: any): string {
  const messages: any[] = body?.messages ?? [];
  const user = messages.filter((m) => m.role === 'user').at(-1);
  return String(user?.content ?? '');
}

/** Answers "echo: <the message>" (its last line: memory blocks come before it). */
export const echoScript: FakeScript = (body) => ({ text: `echo: ${lastUserText(body).split('\n').at(-1) ?? ''}` });

export interface AdapterSetup {
  engine: Engine;
  server: FakeModelServer;
  home: string;
}

/** An engine whose config.toml holds the fake model and `adapters` (TOML text). */
export async function adapterSetup(t: TestContext, script: FakeScript, adapters: string, options: Partial<EngineOptions> = {}, home?: string): Promise<AdapterSetup> {
  const server = await startFakeOllama(script);
  const own = home === undefined;
  const dir = home ?? fs.mkdtempSync(path.join(os.tmpdir(), 'kw-adapters-'));
  fs.writeFileSync(path.join(dir, 'config.toml'), `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${server.url}"\n${adapters}`);
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: dir, adapterReplyBackoffMs: [20, 40], ...options });
  cleanups(t)(async () => {
    await engine.close();
    await server.close();
    if (own) fs.rmSync(dir, { recursive: true, force: true });
  });
  return { engine, server, home: dir };
}

/**
 * `kowalski serve` on `home` (its test token written, killed at the test's end), once its
 * adapter `adapter` runs: adapters start after the server listens (Slack's asks auth.test
 * first), and until then an event is refused with 409, which Slack would send again.
 */
export async function serveWithAdapter(t: TestContext, home: string, adapter: string, env: Record<string, string>): Promise<{ server: RunningCli; url: string }> {
  writeTestToken(home);
  const server = startCli(home, ['serve', '--no-open', '--port', '0'], { limitMs: 120_000, env });
  cleanups(t)(async () => {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGKILL');
    await server.exited;
  });
  const url = /at (http:\/\/127\.0\.0\.1:\d+)\//.exec(await server.stderrLine(/^kowalski serving /))![1]!;
  await waitFor(async () => {
    const { adapters } = await (await fetch(`${url}/api/adapters`, { headers: AUTH })).json() as { adapters: { name: string; state: string }[] };
    return adapters.find((a) => a.name === adapter)?.state === 'running';
  }, `the adapter ${adapter} of ${home} to run`);
  return { server, url };
}
