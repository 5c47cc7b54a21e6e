/**
 * Webhook intake: deliveries to `POST /hooks/<horde>/<trigger>` from 50 concurrent
 * connections, each answered once its run is committed (FULL), against a plain Fastify
 * route on the same machine answering the same bodies at once (the floor: HTTP + JSON,
 * no engine). Runs of one no-op step, overlap = "parallel", every delivery with its own id.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Fastify from 'fastify';
import { Pool } from 'undici';
import { buildApi } from '../api/index.js';
import { createEngine } from '../engine/index.js';
import type { BenchStore, Sync } from './setup.js';
import { engineOptions, removeDir, tempDir } from './setup.js';
import { mainThreadCpuUs, now } from './stats.js';
import { BENCH_AUTH, BENCH_TOKEN } from './token.js';

export const HOOK_CONNECTIONS = 50;

export interface IntakeSample {
  /** Deliveries answered per second. */
  perSec: number;
  ms: number;
  /** Answers other than the expected status. */
  bad: number;
}

/**
 * `total` POSTs over `connections` keep-alive connections, `connections` in flight at a
 * time; with several origins (nodes), the connections are dealt out among them in turn.
 */
export async function drive(origins: string | readonly string[], route: string, total: number, connections: number, expect: number, headers: (i: number) => Record<string, string>): Promise<IntakeSample> {
  const list = typeof origins === 'string' ? [origins] : origins;
  const pools = list.map((origin, k) => new Pool(origin, { connections: Math.ceil((connections - k) / list.length), pipelining: 1 }));
  let next = 0;
  let bad = 0;
  const t0 = now();
  try {
    await Promise.all(Array.from({ length: connections }, async (_, lane) => {
      const pool = pools[lane % pools.length]!;
      while (next < total) {
        const i = next++;
        const res = await pool.request({ path: route, method: 'POST', body: JSON.stringify({ n: i }), headers: { 'content-type': 'application/json', ...BENCH_AUTH, ...headers(i) } });
        await res.body.text();
        if (res.statusCode !== expect) bad++;
      }
    }));
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
  const ms = now() - t0;
  return { perSec: total / (ms / 1000), ms, bad };
}

/** The floor: a plain Fastify route answering the same JSON bodies. */
export async function plainRouteOnce(total: number): Promise<IntakeSample> {
  const app = Fastify({ logger: false });
  app.post('/plain', async () => ({ ok: true }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const { port } = app.server.address() as AddressInfo;
    return await drive(`http://127.0.0.1:${port}`, '/plain', total, HOOK_CONNECTIONS, 200, () => ({}));
  } finally {
    await app.close();
  }
}

export interface HookSample extends IntakeSample {
  /** Runs found afterwards (one per delivery expected). */
  runs: number;
  /** engine.stats over the timed deliveries (the runs' steps included). */
  commits: number;
  batches: number;
  /** Commits the committer held back for deliveries on their way, and the turns it waited (engine.intake.stats). */
  held: number;
  waits: number;
  /** Main-thread CPU (server, engine and the client, which share the process) per delivery, µs; NaN without /proc. */
  cpuUsPerDelivery: number;
}

/** The webhook horde (one trigger `in`, overlap parallel, one noop step) in `<dataDir>/hordes/hooked`. */
export function writeHookHorde(dataDir: string): void {
  const dir = path.join(dataDir, 'hordes', 'hooked');
  fs.mkdirSync(path.join(dir, 'agents'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'horde.md'), '---\nid = "hooked"\npipeline = ["s1"]\n[[triggers]]\nname = "in"\nkind = "webhook"\noverlap = "parallel"\n---\n');
  fs.writeFileSync(path.join(dir, 'agents', 's1.md'), '---\nname = "s1"\nkind = "noop"\n---\n');
}

/** Deliveries to a webhook trigger through the whole server and engine (the run store in the data folder, or `store`). */
export async function webhookOnce(total: number, synchronous: Sync, store?: BenchStore): Promise<HookSample> {
  const dataDir = tempDir('hooks');
  writeHookHorde(dataDir);
  const engine = await createEngine(engineOptions(dataDir, synchronous, 50, store));
  const { app } = await buildApi(engine, { token: BENCH_TOKEN, port: 0 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  // As `kowalski serve` does before it answers: the trigger service and the catalog are
  // loaded, so the first deliveries do not time a one-off catalog read.
  await engine.triggers.start();
  try {
    const { port } = app.server.address() as AddressInfo;
    const { commits, batches } = engine.stats;
    const { held, waits } = engine.intake.stats;
    const c0 = mainThreadCpuUs();
    const sample = await drive(`http://127.0.0.1:${port}`, '/hooks/hooked/in', total, HOOK_CONNECTIONS, 202, (i) => ({ 'x-request-id': `bench-${i}` }));
    const c1 = mainThreadCpuUs();
    const stats = { commits: engine.stats.commits - commits, batches: engine.stats.batches - batches, held: engine.intake.stats.held - held, waits: engine.intake.stats.waits - waits };
    const listed = engine.listRuns({ horde: 'hooked', limit: total });
    for (const r of listed) await engine.waitForRun(r.id);
    return { ...sample, ...stats, runs: listed.length, cpuUsPerDelivery: c0 === undefined || c1 === undefined ? Number.NaN : (c1 - c0) / total };
  } finally {
    await app.close();
    await engine.close();
    removeDir(dataDir);
  }
}
