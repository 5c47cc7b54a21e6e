/**
 * Memory after abuse: a real server (`buildApi` on 127.0.0.1, in a process of its own) is
 * sent, in bounded loops, what the adversarial probe of issue 19 sent — valid bundles of
 * ~18 MiB and 20 MiB of junk to POST /api/bundles (8 at a time), 1 MiB JSON bodies (16 at
 * a time), uploads cut mid-body, and websocket clients that subscribe and never read while
 * runs with a 100 kB snapshot stream to them — and its resident memory is sampled every
 * 50 ms: before, the peak of each phase, right after, 10 s later, and after a forced GC.
 *
 *   npx tsx bench/abuse-memory.ts            (or node dist/bench/abuse-memory.js)
 *
 * Only 127.0.0.1; every loop is bounded in count, the whole script in time (4 minutes).
 * stdout: one markdown table.
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import crypto from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildApi } from '../api/index.js';
import { exportBundle } from '../bundles/index.js';
import { builtinKindNames, createEngine } from '../engine/index.js';
import { engineOptions, removeDir, tempDir } from './setup.js';
import { BENCH_AUTH, BENCH_TOKEN } from './token.js';

const LIMIT_MS = 240_000;
const SETTLE_MS = 10_000;
const MiB = 1024 * 1024;

interface Stats { rss: number; peak: number; heapUsed: number; external: number; arrayBuffers: number; clients: number; internal: number; logLines: number }

/** A horde whose every run.created carries a ~100 kB snapshot (its description). */
function writeWideHorde(parent: string, blobs = 0): string {
  const dir = path.join(parent, 'wide');
  fs.mkdirSync(path.join(dir, 'agents'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'horde.md'), `---\nid = "wide"\npipeline = ["a"]\ndescription = "${'w'.repeat(100_000)}"\n---\n`);
  fs.writeFileSync(path.join(dir, 'agents', 'a.md'), '---\nname = "a"\nkind = "noop"\n---\n');
  for (let i = 0; i < blobs; i++) fs.writeFileSync(path.join(dir, `blob${i}.bin`), crypto.randomBytes(4.5 * MiB));
  return dir;
}

// ---- the server's process -------------------------------------------------------------

async function serve(): Promise<void> {
  const dir = tempDir('abuse');
  fs.mkdirSync(path.join(dir, 'hordes'), { recursive: true });
  writeWideHorde(path.join(dir, 'hordes'));
  const engine = await createEngine(engineOptions(dir, 'normal', 8));
  let internal = 0;
  let logLines = 0;
  const { app, hub } = await buildApi(engine, { token: BENCH_TOKEN, port: 0, onInternalError: () => internal++, log: () => logLines++ });
  await app.listen({ host: '127.0.0.1', port: 0 });
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 50);
  const stats = (): Stats => {
    const m = process.memoryUsage();
    const s = { rss: m.rss, peak: Math.max(peak, m.rss), heapUsed: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers, clients: hub.clients, internal, logLines };
    peak = m.rss;
    return s;
  };
  process.on('message', (m: { type: string }) => {
    if (m.type === 'stats') process.send!({ type: 'stats', stats: stats() });
    if (m.type === 'gc') {
      (globalThis as { gc?: () => void }).gc?.();
      process.send!({ type: 'stats', stats: stats() });
    }
    if (m.type === 'stop') {
      clearInterval(sampler);
      void app.close().then(() => engine.close()).then(() => {
        removeDir(dir);
        process.exit(0);
      });
    }
  });
  process.send!({ type: 'ready', port: (app.server.address() as net.AddressInfo).port });
}

// ---- the abuser -----------------------------------------------------------------------

function ask(child: ChildProcess, type: 'stats' | 'gc'): Promise<Stats> {
  const answer = once(child, 'message').then(([m]) => (m as { stats: Stats }).stats);
  child.send({ type });
  return answer;
}

/** `total` jobs, `parallel` at a time; the statuses they ended with, counted. */
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
async function postUntilTaken(base: string, url: string, body: Uint8Array, type: string, busy: { count: number }): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const outcome = await post(base, url, body, type);
    if (!outcome.startsWith('503')) return outcome;
    busy.count += 1;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return '503 every time';
}

/** An upload that declares 20 MiB, sends 5 MiB and hangs up. */
async function cutUpload(port: number): Promise<string> {
  const socket = net.connect(port, '127.0.0.1');
  await once(socket, 'connect');
  socket.write(`POST /api/bundles HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/zip\r\nContent-Length: ${20 * MiB}\r\n\r\n`);
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

const mb = (n: number): string => (n / MiB).toFixed(0);

async function abuse(): Promise<void> {
  const work = tempDir('abuse-client');
  const deadline = setTimeout(() => {
    process.stderr.write(`abuse-memory: over ${LIMIT_MS / 1000} s, stopping\n`);
    process.exit(2);
  }, LIMIT_MS);
  deadline.unref();
  const self = fileURLToPath(import.meta.url);
  const child = fork(self, ['serve'], { execArgv: [...process.execArgv, '--expose-gc'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const [{ port }] = (await once(child, 'message')) as [{ port: number }];
  const base = `http://127.0.0.1:${port}`;
  const rows: string[] = [];
  const row = (phase: string, s: Stats, note: string): void => {
    rows.push(`| ${phase} | ${mb(s.rss)} | ${mb(s.peak)} | ${mb(s.heapUsed)} | ${mb(s.external)} | ${s.clients} | ${note} |`);
    process.stderr.write(`${phase}: rss ${mb(s.rss)} MB, peak ${mb(s.peak)} MB — ${note}\n`);
  };
  try {
    row('started', await ask(child, 'stats'), 'nothing sent yet');
    // Warm up: one of everything once, so the baseline has the review thread and the routes' code loaded.
    const bigHorde = writeWideHorde(work, 4);
    const valid = await exportBundle(bigHorde, 'wide', { knownKinds: new Set([...builtinKindNames(), 'noop']) });
    await post(base, '/api/bundles', valid, 'application/zip');
    await post(base, '/api/hordes/wide/runs', '{"input":{}}', 'application/json');
    await new Promise((resolve) => setTimeout(resolve, 2000));
    row('before', await ask(child, 'stats'), `a valid bundle is ${mb(valid.length)} MiB`);

    const junk = crypto.randomBytes(20 * MiB);
    const busy = { count: 0 };
    const uploads = await pool(48, 8, (i) => postUntilTaken(base, '/api/bundles', i % 2 === 0 ? valid : junk, 'application/zip', busy));
    row('48 uploads, 8 at a time', await ask(child, 'stats'), `${JSON.stringify(uploads)}, ${busy.count} × 503 retried`);

    const json = `{"input":{"x":"${'j'.repeat(MiB - 100)}"}}`;
    const bodies = await pool(400, 64, () => post(base, '/api/hordes/wide/runs', json, 'application/json'));
    row('400 JSON bodies of 1 MiB, 64 at a time', await ask(child, 'stats'), JSON.stringify(bodies));

    const cut = await pool(20, 4, () => cutUpload(port));
    row('20 uploads cut after 5 MiB', await ask(child, 'stats'), JSON.stringify(cut));

    const deaf = await Promise.all(Array.from({ length: 16 }, () => deafClient(port)));
    const runs = await pool(100, 4, () => post(base, '/api/hordes/wide/runs', '{"input":{}}', 'application/json'));
    row('16 clients that never read, 100 runs of 100 kB', await ask(child, 'stats'), JSON.stringify(runs));
    for (const s of deaf) s.destroy();

    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const settled = await ask(child, 'stats');
    row(`${SETTLE_MS / 1000} s later`, settled, `internal errors ${settled.internal}, log lines ${settled.logLines}`);
    row('after a forced GC', await ask(child, 'gc'), '');
  } finally {
    child.send({ type: 'stop' });
    await once(child, 'exit');
    removeDir(work);
  }
  process.stdout.write(`| phase | RSS MB | peak RSS MB | heap used MB | external MB | ws clients | answers / note |\n|---|---|---|---|---|---|---|\n${rows.join('\n')}\n`);
}

if (process.argv[2] === 'serve') await serve();
else await abuse();
