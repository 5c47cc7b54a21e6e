/**
 * Memory goes back down (issue 38): a real server in a process of its own
 * (memory-server.ts) is sent, one phase after another, each request class that made it
 * spike — the probes of issue 38 (a chat turn that makes a session's log large, a
 * 20,000-step draft PUT, legal 200-step drafts, 8 × 8 chat-follows of that log) and the abuse of issue 19 (bundle uploads
 * of ~18 MiB and 20 MiB of junk 8 at a time, 1 MiB JSON bodies 64 at a time, uploads cut
 * mid-body, websocket clients that never read while runs of 100 kB stream to them). After
 * each phase its RSS is read every 500 ms until it is back to ≤ 1.5× the idle figure, for
 * at most 60 s; no GC is forced.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { exportBundle } from '../bundles/index.js';
import { builtinKindNames } from '../engine/index.js';
import { FOLLOW_READS, FOLLOW_SOCKETS, FOLLOW_TIMES, HUGE_STEPS, LEGAL_STEPS, drafts, inChild } from './event-loop.js';
import { benchModule, removeDir, tempDir } from './setup.js';
import { now } from './stats.js';
import { BENCH_AUTH, BENCH_TOKEN } from './token.js';

const MiB = 1024 * 1024;

/** A horde whose every run.created carries a ~100 kB snapshot (its description), plus `blobs` files of 4.5 MiB (a bundle of ~18 MiB). */
export function writeWideHorde(parent: string, blobs = 0): string {
  const dir = path.join(parent, 'wide');
  fs.mkdirSync(path.join(dir, 'agents'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'horde.md'), `---\nid = "wide"\npipeline = ["a"]\ndescription = "${'w'.repeat(100_000)}"\n---\n`);
  fs.writeFileSync(path.join(dir, 'agents', 'a.md'), '---\nname = "a"\nkind = "noop"\n---\n');
  for (let i = 0; i < blobs; i++) fs.writeFileSync(path.join(dir, `blob${i}.bin`), crypto.randomBytes(4.5 * MiB));
  return dir;
}

/** The bound the issue sets: back within this long… */
export const RETURN_WITHIN_MS = 60_000;
/** …to at most this many times the idle RSS. */
export const RETURN_RATIO = 1.5;
const POLL_MS = 500;
/** Quiet after the warm-up before idle is read, ms: longer than a job process lives idle (10 s). */
export const IDLE_QUIET_MS = 12_000;

export const PHASES = ['session', 'draft-huge', 'draft-legal', 'follow', 'uploads', 'json', 'cut', 'deaf'] as const;
export type Phase = (typeof PHASES)[number];

export const PHASE_NAMES: Record<Phase, string> = {
  session: `a chat turn of ${FOLLOW_READS} read_file calls (the session the follows read)`,
  'draft-huge': `10 PUTs of a ${HUGE_STEPS.toLocaleString('en')}-step draft (refused)`,
  'draft-legal': `10 PUTs of a legal ${LEGAL_STEPS}-step draft`,
  follow: `${FOLLOW_SOCKETS} websockets × ${FOLLOW_TIMES} chat-follows of a large log`,
  uploads: '48 bundle uploads of 18–20 MiB, 8 at a time',
  json: '400 JSON bodies of 1 MiB, 64 at a time',
  cut: '20 uploads cut after 5 MiB',
  deaf: '16 websockets that never read, 100 runs of 100 kB',
};

/** The server's RSS now and its highest since the last ask, bytes (memory-server.ts). */
export interface MemoryStats { rss: number; peak: number; heapUsed: number; external: number }

export interface PhaseMemory {
  /** The highest RSS sampled during the phase, MB. */
  peakMb: number;
  /** From the phase's end until RSS ≤ RETURN_RATIO × idle, ms (NaN: not within RETURN_WITHIN_MS). */
  backMs: number;
  /** RSS when the wait ended, MB. */
  endMb: number;
  /** The main thread's V8 heap in use and its external memory (buffers) then, MB. */
  heapMb: number;
  externalMb: number;
  /** What the requests were answered with. */
  answers: string;
}

export interface MemorySample {
  idleMb: number;
  phases: Record<Phase, PhaseMemory>;
}

function ask<T>(child: ChildProcess, type: 'stats' | 'session', key: string): Promise<T> {
  const answer = once(child, 'message').then(([m]) => (m as Record<string, T>)[key]!);
  child.send({ type });
  return answer;
}

const stats = (child: ChildProcess): Promise<MemoryStats> => ask<MemoryStats>(child, 'stats', 'stats');
const mb = (bytes: number): number => bytes / MiB;

/** `total` jobs, `parallel` at a time; the answers they ended with, counted. */
async function pool(total: number, parallel: number, job: (i: number) => Promise<string>): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  let next = 0;
  await Promise.all(Array.from({ length: parallel }, async () => {
    while (next < total) {
      const outcome = await job(next++).catch((err: Error) => `error ${(err.cause as { code?: string } | undefined)?.code ?? err.message}`);
      counts[outcome] = (counts[outcome] ?? 0) + 1;
    }
  }));
  return counts;
}

async function post(base: string, url: string, body: Uint8Array | string, type: string): Promise<string> {
  const res = await fetch(`${base}${url}`, { method: 'POST', headers: { ...BENCH_AUTH, 'content-type': type }, body });
  const json = (await res.json()) as { error?: { code: string } };
  return `${res.status}${json.error === undefined ? '' : ` ${json.error.code}`}`;
}

/** As a client told 503 does: again after 100 ms, until it gets another answer (at most 600 tries). */
async function postUntilTaken(base: string, url: string, body: Uint8Array, type: string): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const outcome = await post(base, url, body, type);
    if (!outcome.startsWith('503')) return outcome;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return '503 every time';
}

/** An upload that declares 20 MiB, sends 5 MiB and hangs up. */
async function cutUpload(port: number): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.write(`POST /api/bundles HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${BENCH_TOKEN}\r\nContent-Type: application/zip\r\nContent-Length: ${20 * MiB}\r\n\r\n`);
  await new Promise<void>((resolve) => socket.write(crypto.randomBytes(5 * MiB), () => resolve()));
  socket.destroy();
  return 'cut';
}

/** Handshake and subscribe (from the start of the log) in one write, then never read. */
async function deafClient(port: number): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1');
  await once(socket, 'connect');
  const payload = Buffer.from(JSON.stringify({ type: 'subscribe', after: 0 }));
  const mask = crypto.randomBytes(4);
  const frame = Buffer.concat([Buffer.from([0x81, 0x80 | payload.length]), mask, Buffer.from(payload.map((b, i) => b ^ mask[i % 4]!))]);
  socket.write(`GET /api/ws HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: ${crypto.randomBytes(16).toString('base64')}\r\nSec-WebSocket-Protocol: kowalski, bearer.${BENCH_TOKEN}\r\n\r\n`);
  socket.write(frame);
  socket.pause();
  socket.on('error', () => undefined);
  return socket;
}

/** With KOWALSKI_BENCH_SMAPS=<folder>: the server's /proc/<pid>/smaps (which mappings hold its RSS) as `<pid>-<when>.smaps` there. */
function keepSmaps(child: ChildProcess, when: string): void {
  const folder = process.env.KOWALSKI_BENCH_SMAPS;
  if (folder !== undefined) fs.writeFileSync(path.join(folder, `${child.pid}-${when}.smaps`), fs.readFileSync(`/proc/${child.pid}/smaps`));
}

/** After a phase: poll until RSS ≤ RETURN_RATIO × idle, at most RETURN_WITHIN_MS. */
async function waitForReturn(child: ChildProcess, idle: number, peak: number, answers: string): Promise<PhaseMemory> {
  const t0 = now();
  for (;;) {
    const s = await stats(child);
    peak = Math.max(peak, s.peak);
    const elapsed = now() - t0;
    const back = s.rss <= RETURN_RATIO * idle;
    if (back || elapsed >= RETURN_WITHIN_MS) {
      return { peakMb: mb(peak), backMs: back ? elapsed : Number.NaN, endMb: mb(s.rss), heapMb: mb(s.heapUsed), externalMb: mb(s.external), answers };
    }
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/** `plainMalloc`: without the launcher's MALLOC_MMAP_THRESHOLD_ (glibc's dynamic threshold). */
export async function memoryOnce(plainMalloc = false): Promise<MemorySample> {
  const work = tempDir('memory-client');
  // As `kowalski serve` runs (bin/kowalski sets the threshold unless the user did, and --expose-gc for api/memory-relief.ts); `--malloc=glibc` measures without the threshold.
  const env: NodeJS.ProcessEnv = { ...process.env, MALLOC_MMAP_THRESHOLD_: process.env.MALLOC_MMAP_THRESHOLD_ ?? '131072' };
  if (plainMalloc) delete env.MALLOC_MMAP_THRESHOLD_;
  const child = fork(benchModule('memory-server'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env, execArgv: [...process.execArgv, '--expose-gc'] });
  try {
    const [{ port }] = (await once(child, 'message')) as [{ port: number }];
    const base = `http://127.0.0.1:${port}`;
    // Warm up: one light request of each kind, so idle has the routes' code loaded.
    const made = await (await fetch(`${base}/api/rookery/drafts`, { method: 'POST', headers: BENCH_AUTH })).json() as { id: string };
    const draftUrl = `${base}/api/rookery/drafts/${made.id}`;
    await inChild({ kind: 'put', url: draftUrl, body: JSON.stringify({ draft: drafts(3) }), count: 1, status: 200 });
    await post(base, '/api/hordes/wide/runs', '{"input":{}}', 'application/json');
    const knownKinds = new Set([...builtinKindNames(), 'noop']);
    const small = await exportBundle(writeWideHorde(path.join(work, 'small')), 'wide', { knownKinds });
    await post(base, '/api/bundles', small, 'application/zip');
    // Then quiet until the review process has ended (10 s after its last review), so idle is the server's alone.
    await new Promise((resolve) => setTimeout(resolve, IDLE_QUIET_MS));
    const idle = (await stats(child)).rss;
    keepSmaps(child, 'idle');

    const valid = await exportBundle(writeWideHorde(work, 4), 'wide', { knownKinds });
    const junk = crypto.randomBytes(20 * MiB);
    const json = `{"input":{"x":"${'j'.repeat(MiB - 100)}"}}`;
    const phases: Partial<Record<Phase, PhaseMemory>> = {};
    let sessionId = '';
    const run: Record<Phase, () => Promise<string>> = {
      session: async () => {
        sessionId = await ask<string>(child, 'session', 'sessionId');
        return 'done';
      },
      'draft-huge': async () => `${await inChild({ kind: 'put', url: draftUrl, body: JSON.stringify({ draft: drafts(HUGE_STEPS) }), count: 10, status: 413 })} × 413`,
      'draft-legal': async () => `${await inChild({ kind: 'put', url: draftUrl, body: JSON.stringify({ draft: drafts(LEGAL_STEPS) }), count: 10, status: 200 })} × 200`,
      follow: async () => `${await inChild({ kind: 'follow', wsUrl: `ws://127.0.0.1:${port}/api/ws`, sessionId, sockets: FOLLOW_SOCKETS, times: FOLLOW_TIMES })} events`,
      uploads: async () => JSON.stringify(await pool(48, 8, (i) => postUntilTaken(base, '/api/bundles', i % 2 === 0 ? valid : junk, 'application/zip'))),
      json: async () => JSON.stringify(await pool(400, 64, () => post(base, '/api/hordes/wide/runs', json, 'application/json'))),
      cut: async () => JSON.stringify(await pool(20, 4, () => cutUpload(port))),
      deaf: async () => {
        const deaf = await Promise.all(Array.from({ length: 16 }, () => deafClient(port)));
        const runs = await pool(100, 4, () => post(base, '/api/hordes/wide/runs', '{"input":{}}', 'application/json'));
        for (const s of deaf) s.destroy();
        return JSON.stringify(runs);
      },
    };
    for (const phase of PHASES) {
      await stats(child); // the peak restarts here
      const answers = await run[phase]();
      const { peak } = await stats(child);
      phases[phase] = await waitForReturn(child, idle, peak, answers);
      keepSmaps(child, phase);
    }
    return { idleMb: mb(idle), phases: phases as Record<Phase, PhaseMemory> };
  } finally {
    child.send({ type: 'stop' });
    await once(child, 'exit');
    removeDir(work);
  }
}
