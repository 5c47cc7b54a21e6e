/**
 * The operator server under load, over real sockets:
 * - approval round trip: a websocket client sends `approve` for a parked run and times
 *   until the `step.started` frame of the approved step reaches it (the approval and the
 *   step's start are committed, then streamed back), one run at a time;
 * - streaming: 10 websocket clients subscribed to every run while 50 runs of six no-op
 *   steps execute; events delivered per second, against the same 50 runs with no client.
 */
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import WebSocket from 'ws';
import { buildApi } from '../api/index.js';
import { createEngine } from '../engine/index.js';
import type { Engine } from '../engine/index.js';
import type { Sync } from './setup.js';
import { engineOptions, noopSteps, removeDir, tempDir, verifyStep, writeHorde } from './setup.js';
import { now } from './stats.js';
import { resultOf, runPhase, send } from './proc.js';
import { BENCH_TOKEN } from './token.js';

interface Served {
  engine: Engine;
  wsUrl: string;
  close(): Promise<void>;
}

async function serve(synchronous: Sync, maxParallelSteps: number, hordes: (dir: string) => void, parkedKept?: number): Promise<Served> {
  const dataDir = tempDir('api');
  hordes(path.join(dataDir, 'hordes'));
  const engine = await createEngine({ ...engineOptions(dataDir, synchronous, maxParallelSteps), ...(parkedKept === undefined ? {} : { parkedKept }) });
  const { app } = await buildApi(engine, { token: BENCH_TOKEN, port: 0 });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const port = (app.server.address() as AddressInfo).port;
  return {
    engine,
    wsUrl: `ws://127.0.0.1:${port}/api/ws`,
    async close() {
      await app.close();
      await engine.close();
      removeDir(dataDir);
    },
  };
}

function connect(url: string, onFrame: (frame: any) => void): Promise<WebSocket> {
  const ws = new WebSocket(url, ['kowalski', `bearer.${BENCH_TOKEN}`]);
  ws.on('message', (data) => onFrame(JSON.parse(String(data))));
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws));
    ws.once('error', reject);
  });
}

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export interface ApprovalSample {
  p50: number;
  p99: number;
  approvals: number;
}

/**
 * `runs` runs park at a verify step; a client in another process (as a browser would be)
 * approves each in turn over the websocket. In the same process, the fork of each
 * approved step's command (it stalls every thread of a big process for a moment) would
 * be charged to the client's receive. `kept: false`: the engine keeps no parked run in
 * memory, so each approval reads and folds the run's log (as for a run parked long ago).
 */
export async function approvalOnce(runs: number, synchronous: Sync, kept = true): Promise<ApprovalSample> {
  const served = await serve(synchronous, 4, (dir) => writeHorde(dir, 'gate', [{ name: 'a', kind: 'noop' }, verifyStep('check'), { name: 'c', kind: 'noop' }]), kept ? undefined : 0);
  try {
    const { engine } = served;
    const { horde } = await engine.resolveHorde('gate');
    const ids = await Promise.all(Array.from({ length: runs }, async () => {
      const id = await engine.startRun(horde, {}, { provenance: 'bench' });
      await engine.waitForRun(id);
      return id;
    }));
    const result = resultOf(await runPhase(['api-approver', served.wsUrl, ids.join(',')]), 'api-approver');
    const times = result.times as number[];
    await Promise.all(ids.map((id) => engine.waitForRun(id)));
    return { p50: percentile(times, 50), p99: percentile(times, 99), approvals: times.length };
  } finally {
    await served.close();
  }
}

/**
 * Child side: approve each run in turn, timing the approve frame to the approved step's
 * `step.started` frame; the next approval waits until the run has finished, so each is
 * measured on a quiet server (not during the previous command's fork).
 */
export async function approver(wsUrl: string, ids: string[]): Promise<void> {
  let waiting: { runId: string; resolve: () => void } | undefined;
  let ending: { runId: string; resolve: () => void } | undefined;
  let refused: string | undefined;
  const ws = await connect(wsUrl, (f) => {
    if (f.type === 'event' && f.runId === waiting?.runId && f.event.type === 'step.started' && f.event.step === 'check') waiting?.resolve();
    if (f.type === 'event' && f.runId === ending?.runId && (f.state === 'succeeded' || f.state === 'failed')) ending?.resolve();
    if (f.type === 'error') {
      refused = `approve refused: ${f.error.message}`;
      waiting?.resolve();
    }
  });
  ws.send(JSON.stringify({ type: 'subscribe' }));
  const times: number[] = [];
  for (const runId of ids) {
    const started = new Promise<void>((resolve) => (waiting = { runId, resolve }));
    const ended = new Promise<void>((resolve) => (ending = { runId, resolve }));
    const t0 = now();
    ws.send(JSON.stringify({ type: 'approve', runId, step: 'check' }));
    await started;
    if (refused !== undefined) throw new Error(refused);
    times.push(now() - t0);
    await ended;
  }
  ws.close();
  await send({ type: 'result', times });
}

export interface StreamSample {
  /** Wall time from the first start to the last event at the last client (or to the last success with no client), ms. */
  ms: number;
  /** Events committed by the 50 runs. */
  events: number;
  /** Frames delivered to all clients together. */
  delivered: number;
  /** Clients that missed or repeated an event (must be 0). */
  bad: number;
}

/** `runs` runs of six no-op steps, all started at once, watched by `clients` websocket clients. */
export async function streamOnce(runs: number, clients: number, synchronous: Sync): Promise<StreamSample> {
  const served = await serve(synchronous, runs, (dir) => writeHorde(dir, 'six', noopSteps()));
  try {
    const { engine } = served;
    const { horde } = await engine.resolveHorde('six');
    const expected = runs * (1 + 6 * 2); // run.created, then step.started + step.finished per step
    const counts: number[] = Array.from({ length: clients }, () => 0);
    const lastGseq: number[] = Array.from({ length: clients }, () => 0);
    let bad = 0;
    let doneClients = 0;
    let allDone: () => void = () => undefined;
    const finished = new Promise<void>((resolve) => (allDone = resolve));
    const sockets = await Promise.all(Array.from({ length: clients }, (_, i) => connect(served.wsUrl, (f) => {
      if (f.type !== 'event') return;
      if (f.gseq !== lastGseq[i]! + 1) bad++;
      lastGseq[i] = f.gseq;
      if (++counts[i]! === expected && ++doneClients === clients) allDone();
    })));
    for (const ws of sockets) ws.send(JSON.stringify({ type: 'subscribe', after: 0 }));
    const t0 = now();
    const ids = await Promise.all(Array.from({ length: runs }, () => engine.startRun(horde, {}, { provenance: 'bench' })));
    await Promise.all(ids.map((id) => engine.waitForRun(id)));
    if (clients > 0) await finished;
    const ms = now() - t0;
    for (const ws of sockets) ws.close();
    const events = engine.eventsSince(0, 1_000_000).length;
    return { ms, events, delivered: counts.reduce((a, b) => a + b, 0), bad: bad + counts.filter((c) => c !== events).length };
  } finally {
    await served.close();
  }
}
