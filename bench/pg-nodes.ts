/**
 * Several kowalski nodes on one Postgres store (issue 18), each an engine in a process of
 * its own (child.ts), started together: W1 with the runs and the runs in flight shared
 * out among the nodes, and webhook intake with the client's connections dealt out among
 * the nodes' servers. The parent holds the clock: from `go` (every node warmed up) to the
 * last node's result.
 */
import type { ChildProcess } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { buildApi } from '../api/index.js';
import { createEngine } from '../engine/index.js';
import { receive, resultOf, runPhase, send } from './proc.js';
import type { PhaseEnd, PhaseMessage } from './proc.js';
import { engineOptions, noopSteps, removeDir, tempDir, writeHorde } from './setup.js';
import { mainThreadCpuUs, now } from './stats.js';
import { W1_STEPS, drive as driveRuns } from './w1.js';
import { HOOK_CONNECTIONS, drive as deliver, writeHookHorde } from './webhook.js';
import type { IntakeSample } from './webhook.js';
import { BENCH_TOKEN } from './token.js';

/** `total` dealt out among `parts`, the first ones taking the remainder: 50 / 3 → 17, 17, 16. */
export function shares(total: number, parts: number): number[] {
  return Array.from({ length: parts }, (_, k) => Math.floor(total / parts) + (k < total % parts ? 1 : 0));
}

/** What one node measured, and the engine.stats over its timed part. */
interface NodeResult {
  failed: number;
  cpuUs: number;
  commits: number;
  batches: number;
  events: number;
  runs: number;
}

function nodeResult(m: PhaseMessage): NodeResult {
  return { failed: Number(m.failed ?? 0), cpuUs: Number(m.cpuUs), commits: Number(m.commits), batches: Number(m.batches), events: Number(m.events), runs: Number(m.runs ?? 0) };
}

/** Start `n` node phases; once all have sent `ready`, call `whenReady` with them (it sends them on). */
async function nodes(n: number, args: (k: number) => string[], whenReady: (children: ChildProcess[], ready: PhaseMessage[]) => void, ended: () => void): Promise<NodeResult[]> {
  const children: ChildProcess[] = [];
  const ready: PhaseMessage[] = [];
  const phases: Array<Promise<PhaseEnd>> = [];
  for (let k = 0; k < n; k++) {
    phases.push(runPhase(args(k), {
      limitMs: 300_000,
      onMessage: (m, child) => {
        if (m.type === 'ready') {
          children.push(child);
          ready.push(m);
          if (ready.length === n) whenReady(children, ready);
        } else if (m.type === 'result') {
          ended();
        } else if (m.type === 'error') {
          for (const c of children) c.kill('SIGKILL'); // the others would wait for a `go` that never comes
        }
      },
    }));
  }
  const ends = await Promise.all(phases);
  // A node that failed first, before the ones it took down with it (SIGKILL, no result).
  const order = ends.map((end, k) => ({ end, k })).sort((a, b) => Number(b.end.messages.some((m) => m.type === 'error')) - Number(a.end.messages.some((m) => m.type === 'error')));
  for (const { end, k } of order) resultOf(end, `${args(k)[0]} ${k + 1}/${n}`);
  return ends.map((end, k) => nodeResult(resultOf(end, `${args(k)[0]} ${k + 1}/${n}`)));
}

export interface NodesW1Sample {
  ms: number;
  runsPerSec: number;
  usPerStep: number;
  /** Main-thread CPU of all nodes together per step, µs. */
  cpuUsPerStep: number;
  commits: number;
  batches: number;
  events: number;
  failed: number;
}

/** W1 on `nodes` engines sharing the database at `url`: `runs` runs, `inFlight` of them at a time, both shared out. */
export async function pgW1NodesOnce(url: string, nodeCount: number, runs: number, inFlight: number): Promise<NodesW1Sample> {
  const dir = tempDir('pg-w1-nodes');
  try {
    const hordeDir = writeHorde(dir, 'bench-w1', noopSteps());
    const files = path.join(dir, 'files');
    const runShares = shares(runs, nodeCount);
    const flights = shares(inFlight, nodeCount);
    let t0 = 0;
    let t1 = 0;
    const results = await nodes(nodeCount, (k) => ['pg-w1-node', url, files, hordeDir, path.join(dir, `node${k}`), String(runShares[k]), String(flights[k])], (children) => {
      t0 = now();
      for (const c of children) c.send({ type: 'go' });
    }, () => void (t1 = now()));
    const ms = t1 - t0;
    const sum = (f: (r: NodeResult) => number) => results.reduce((n, r) => n + f(r), 0);
    return {
      ms, runsPerSec: (runs * 1000) / ms, usPerStep: (ms * 1000) / (runs * W1_STEPS), cpuUsPerStep: sum((r) => r.cpuUs) / (runs * W1_STEPS),
      commits: sum((r) => r.commits), batches: sum((r) => r.batches), events: sum((r) => r.events), failed: sum((r) => r.failed),
    };
  } finally {
    removeDir(dir);
  }
}

/** Child side of pgW1NodesOnce: one node warms up (2 × its runs in flight), says ready, waits for `go`, runs its share. */
export async function pgW1Node(url: string, files: string, hordeDir: string, home: string, runs: number, inFlight: number): Promise<void> {
  const engine = await createEngine(engineOptions(path.join(home, 'data'), 'full', inFlight, { url, files }));
  try {
    const { horde } = await engine.resolveHorde(hordeDir);
    await driveRuns(engine, horde, 2 * inFlight, inFlight);
    const go = receive('go');
    await send({ type: 'ready' });
    await go;
    const before = { ...engine.stats };
    const c0 = mainThreadCpuUs() ?? Number.NaN;
    const failed = await driveRuns(engine, horde, runs, inFlight);
    const cpuUs = (mainThreadCpuUs() ?? Number.NaN) - c0;
    const after = engine.stats;
    await send({ type: 'result', failed, cpuUs, commits: after.commits - before.commits, batches: after.batches - before.batches, events: after.events - before.events });
  } finally {
    await engine.close();
  }
}

export interface NodesHookSample extends IntakeSample {
  /** Runs of the webhook horde in the shared store afterwards (one per delivery expected). */
  runs: number;
  commits: number;
  batches: number;
  /** Main-thread CPU of the nodes together per delivery, µs (the client is in this process, not counted). */
  cpuUsPerDelivery: number;
}

/** `total` webhook deliveries over 50 connections dealt out among `nodeCount` servers (one node each) sharing `url`. */
export async function pgHookNodesOnce(url: string, nodeCount: number, total: number): Promise<NodesHookSample> {
  const dir = tempDir('pg-hook-nodes');
  try {
    const files = path.join(dir, 'files');
    let sample: Promise<IntakeSample> | undefined;
    const results = await nodes(nodeCount, (k) => ['pg-hook-node', url, files, path.join(dir, `node${k}`)], (children, ready) => {
      const origins = ready.map((m) => `http://127.0.0.1:${Number(m.port)}`);
      sample = deliver(origins, '/hooks/hooked/in', total, HOOK_CONNECTIONS, 202, (i) => ({ 'x-request-id': `bench-${i}` }));
      // Every node stops once the last delivery is answered (or the client failed).
      void sample.finally(() => {
        for (const c of children) c.send({ type: 'stop' });
      }).catch(() => undefined);
    }, () => undefined);
    if (sample === undefined) throw new Error('the webhook nodes ended before they were all ready');
    const s = await sample;
    const sum = (f: (r: NodeResult) => number) => results.reduce((n, r) => n + f(r), 0);
    return { ...s, runs: Math.max(...results.map((r) => r.runs)), commits: sum((r) => r.commits), batches: sum((r) => r.batches), cpuUsPerDelivery: sum((r) => r.cpuUs) / total };
  } finally {
    removeDir(dir);
  }
}

/** Child side of pgHookNodesOnce: a server with the webhook horde on the shared store, until `stop`. */
export async function pgHookNode(url: string, files: string, home: string): Promise<void> {
  writeHookHorde(home);
  const engine = await createEngine(engineOptions(home, 'full', 50, { url, files }));
  try {
    const { app } = await buildApi(engine, { token: BENCH_TOKEN, port: 0 });
    await app.listen({ host: '127.0.0.1', port: 0 });
    try {
      await engine.triggers.start(); // as `kowalski serve` does before it answers
      const stop = receive('stop');
      const before = { ...engine.stats };
      const c0 = mainThreadCpuUs() ?? Number.NaN;
      await send({ type: 'ready', port: (app.server.address() as AddressInfo).port });
      await stop;
      const cpuUs = (mainThreadCpuUs() ?? Number.NaN) - c0;
      const after = engine.stats;
      const runs = engine.listRuns({ horde: 'hooked', limit: 100_000 }).length;
      await send({ type: 'result', cpuUs, runs, commits: after.commits - before.commits, batches: after.batches - before.batches, events: after.events - before.events });
    } finally {
      await app.close();
    }
  } finally {
    await engine.close();
  }
}
