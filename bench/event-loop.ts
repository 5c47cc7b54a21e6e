/**
 * No single request holds the event loop (issue 38): a real server on 127.0.0.1 answers
 * `GET /api/health` one request after another while one kind of heavy request runs, and
 * the p99 of those answers is compared with the same on the quiet server (the floor, in
 * the same run). The requests: `PUT /api/rookery/drafts/:id` of 20,000 small steps
 * (refused), of a legal 200-step draft (normalised, rendered and loaded), and `chat-follow`
 * on a session with a large log from 8 websockets, 8 follows each. Also timed in process:
 * `parseDraft` of a 20,000-step TOML (refused).
 */
import { fork } from 'node:child_process';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { buildApi } from '../api/index.js';
import { createEngine, parseDraft } from '../engine/index.js';
import type { Engine } from '../engine/index.js';
import { profile, writeTeam } from '../testkit/chat.js';
import { startFakeOllama } from '../testkit/fake-models.js';
import type { FakeModelServer } from '../testkit/fake-models.js';
import { healthDuring, p99 } from './loader.js';
import type { ClientJob } from './event-loop-client.js';
import { benchModule, removeDir, tempDir } from './setup.js';
import { now } from './stats.js';
import { BENCH_AUTH, BENCH_TOKEN } from './token.js';

/** Steps of the draft that must be refused (the finding's 20,000 small steps). */
export const HUGE_STEPS = 20_000;
/** Steps of the legal draft (the most a horde may have). */
export const LEGAL_STEPS = 200;
/** read_file calls in the one turn that makes the followed session's log large, and the characters each reads. */
export const FOLLOW_READS = 400;
const READ_CHARS = 40_000;
export const FOLLOW_SOCKETS = 8;
export const FOLLOW_TIMES = 8;
/** PUTs one after another during which /api/health is asked. */
const PUTS = 10;
/** Answers of the quiet server that make the floor. */
const FLOOR_ANSWERS = 300;

export interface HealthDuring {
  p99: number;
  max: number;
  answers: number;
  /** ms per request of the heavy kind (mean). */
  ms: number;
}

export interface EventLoopSample {
  floor: HealthDuring;
  hugeDraft: HealthDuring;
  legalDraft: HealthDuring;
  follow: HealthDuring & { events: number; logChars: number; rssBeforeMb: number; rssAfterMb: number };
  /** parseDraft of a 20,000-step TOML, ms (refused). */
  parseHugeMs: number;
  /** A 200-step TOML parsed (legal), ms. */
  parseLegalMs: number;
}

function summary(times: readonly number[], count: number, wallMs: number): HealthDuring {
  return { p99: p99(times), max: times.at(-1) ?? Number.NaN, answers: times.length, ms: wallMs / count };
}

/** /api/health while a client in another process does `count` requests of `job`. */
async function during(base: string, count: number, job: ClientJob): Promise<HealthDuring> {
  const t0 = now();
  const work = inChild(job);
  const times = await healthDuring(base, work);
  await work;
  return summary(times, count, now() - t0);
}

/** Run the heavy client in its own process; resolves with the count it reports. */
export function inChild(job: ClientJob): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = fork(benchModule('event-loop-client'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    child.send(job);
    let result: number | undefined;
    child.on('message', (m: { type: string; count?: number; message?: string }) => {
      if (m.type === 'done') result = m.count;
      else reject(new Error(`the bench's ${job.kind} client failed: ${m.message ?? '?'}`));
    });
    child.once('error', reject);
    child.once('exit', (code) => (result === undefined ? reject(new Error(`the bench's ${job.kind} client exited ${code} without a result`)) : resolve(result)));
  });
}

/** A session whose log is large: one turn of FOLLOW_READS read_file calls of a READ_CHARS file. */
export async function largeSession(engine: Engine): Promise<string> {
  const { id } = engine.chat.create({ agent: 'reader', by: 'bench' });
  const out = await engine.chat.send(id, 'read it many times', { by: 'bench' }).done;
  if (out.stop !== 'done') throw new Error(`the bench's reading turn ended ${out.stop}: ${JSON.stringify(out.error)}`);
  return id;
}

/** A draft of `steps` steps, as the app sends it. */
export function drafts(steps: number): Record<string, unknown> {
  return { id: 'bench-draft', steps: Array.from({ length: steps }, (_, i) => ({ name: `s${i}`, kind: i === 0 ? 'ingest' : 'process' })) };
}

function toml(steps: number): string {
  return `id = "bench-draft"\n${Array.from({ length: steps }, (_, i) => `[[steps]]\nname = "s${i}"\nkind = "process"\n`).join('')}`;
}

export async function eventLoopOnce(): Promise<EventLoopSample> {
  let t0 = now();
  const hugeParsed = parseDraft(toml(HUGE_STEPS));
  const parseHugeMs = now() - t0;
  if (hugeParsed.ok) throw new Error('a 20,000-step draft was read');
  t0 = now();
  const legalParsed = parseDraft(toml(LEGAL_STEPS));
  const parseLegalMs = now() - t0;
  if (!legalParsed.ok) throw new Error(`the 200-step draft was refused: ${legalParsed.error}`);

  const reader = await readerHome('event-loop');
  try {
    const engine = await createEngine({ dataDir: reader.home });
    const api = await buildApi(engine, { token: BENCH_TOKEN, port: 0 });
    try {
      await api.app.listen({ host: '127.0.0.1', port: 0 });
      const port = (api.app.server.address() as AddressInfo).port;
      const base = `http://127.0.0.1:${port}`;
      const wsUrl = `ws://127.0.0.1:${port}/api/ws`;
      for (let i = 0; i < 20; i++) await (await fetch(`${base}/api/health`, { headers: BENCH_AUTH })).arrayBuffer();

      t0 = now();
      const quiet: number[] = [];
      for (let i = 0; i < FLOOR_ANSWERS; i++) {
        const t1 = now();
        await (await fetch(`${base}/api/health`, { headers: BENCH_AUTH })).arrayBuffer();
        quiet.push(now() - t1);
      }
      const floor = summary(quiet.sort((a, b) => a - b), FLOOR_ANSWERS, now() - t0);

      const made = await (await fetch(`${base}/api/rookery/drafts`, { method: 'POST', headers: BENCH_AUTH })).json() as { id: string };
      const url = `${base}/api/rookery/drafts/${made.id}`;
      const hugeDraft = await during(base, PUTS, { kind: 'put', url, body: JSON.stringify({ draft: drafts(HUGE_STEPS) }), count: PUTS, status: 413 });
      const legalDraft = await during(base, PUTS, { kind: 'put', url, body: JSON.stringify({ draft: drafts(LEGAL_STEPS) }), count: PUTS, status: 200 });

      const sessionId = await largeSession(engine);
      const log = engine.chat.events(sessionId);
      const logChars = log.reduce((n, e) => n + JSON.stringify(e.event).length, 0);
      const rssBeforeMb = process.memoryUsage().rss / 2 ** 20;
      t0 = now();
      const follows = inChild({ kind: 'follow', wsUrl, sessionId, sockets: FOLLOW_SOCKETS, times: FOLLOW_TIMES });
      const times = await healthDuring(base, follows);
      const events = await follows;
      const wall = now() - t0;
      const rssAfterMb = process.memoryUsage().rss / 2 ** 20;
      if (events !== log.length * FOLLOW_SOCKETS * FOLLOW_TIMES) throw new Error(`the followers got ${events} events, not ${log.length * FOLLOW_SOCKETS * FOLLOW_TIMES}`);
      return {
        floor, hugeDraft, legalDraft, parseHugeMs, parseLegalMs,
        follow: { ...summary(times, FOLLOW_SOCKETS * FOLLOW_TIMES, wall), events: log.length, logChars, rssBeforeMb, rssAfterMb },
      };
    } finally {
      await api.app.close();
      await engine.close();
    }
  } finally {
    await reader.close();
  }
}

export interface ReaderHome {
  home: string;
  /** Forget the requests the fake model kept (a test's record, the 16 MB of read_file results the second call carried): it runs in this process, whose memory the memory bench counts as the server's. */
  forgetRequests(): void;
  /** Stop the fake model and remove the folders. */
  close(): Promise<void>;
}

/** A data folder whose model (a fake Ollama in this process) answers the `reader` profile's first call with FOLLOW_READS read_file calls of a READ_CHARS file. */
export async function readerHome(label: string): Promise<ReaderHome> {
  const model: FakeModelServer = await startFakeOllama((body: { messages?: { role: string }[] }) =>
    (body.messages ?? []).some((m) => m.role === 'tool')
      ? { text: 'Read.' }
      : { toolCalls: Array.from({ length: FOLLOW_READS }, () => ({ name: 'read_file', arguments: { path: 'big.txt' } })) });
  const home = tempDir(label);
  const files = tempDir(`${label}-files`);
  fs.writeFileSync(path.join(files, 'big.txt'), 'x'.repeat(READ_CHARS));
  writeTeam(home, { reader: profile('reader', 'tools = ["read_file"]') });
  fs.writeFileSync(path.join(home, 'config.toml'),
    `[store]\nsynchronous = "normal"\n[model]\ndefault = "ollama:bench"\ntool_calling = "native"\n[providers.ollama]\nhost = "${model.url}"\n[tools]\nroot = "${files}"\n`);
  return {
    home,
    forgetRequests: () => void model.requests.splice(0),
    close: async () => {
      await model.close();
      removeDir(home);
      removeDir(files);
    },
  };
}
