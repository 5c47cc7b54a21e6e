/**
 * W1: the durable overhead per step. A 6-step pipeline of no-op steps, 500 runs one at
 * a time and 500 runs with 50 in flight, at synchronous FULL and NORMAL.
 */
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createEngine } from '../engine/index.js';
import type { Engine } from '../engine/index.js';
import type { HordeDef } from '../core/index.js';
import type { BenchStore, Sync } from './setup.js';
import { engineOptions, noopSteps, removeDir, tempDir, writeHorde } from './setup.js';
import { mainThreadCpuUs, now } from './stats.js';

export interface W1Options {
  synchronous: Sync;
  runs: number;
  /** Runs kept in flight (1 = one at a time: start, wait, start the next). */
  inFlight: number;
  maxParallelSteps: number;
  /** Runs done before the clock starts (pool threads up, kind module loaded). */
  warmup: number;
  /**
   * `lanes` (default): `inFlight` callers, each starting its next run when its last one
   * settled. `batches`: the peers' driver (Mastra, LangGraph, DBOS in the issue's table):
   * `Promise.all` over `inFlight` runs, then the next batch.
   */
  shape?: 'lanes' | 'batches';
  /** A Postgres run store (issue 18) instead of SQLite in the data folder (`synchronous` then only concerns the engine's own SQLite files). */
  store?: BenchStore;
}

export interface W1Sample {
  ms: number;
  runsPerSec: number;
  usPerStep: number;
  /** Main-thread CPU per step, µs (NaN without /proc). */
  cpuUsPerStep: number;
  /** CPU of every thread of the process (main, pool threads, SQLite checkpointer) per step, µs. */
  cpuAllUsPerStep: number;
  /** The engine thread's longest pause (event-loop delay), ms: a WAL checkpoint or truncation between two commits shows here. */
  maxPauseMs: number;
  commits: number;
  batches: number;
  events: number;
  /** Runs that did not succeed (must be 0). */
  failed: number;
}

export const W1_STEPS = 6;

/** Runs/s if each of W1's steps cost one commit of `usPerCommit` µs: the floor of the runs/s rows. */
export const floorRunsPerSec = (usPerCommit: number): number => 1e6 / (W1_STEPS * usPerCommit);

/** Keep `inFlight` runs going until `runs` have been started and all have settled. */
export async function drive(engine: Engine, horde: HordeDef, runs: number, inFlight: number): Promise<number> {
  let started = 0;
  let failed = 0;
  const lane = async (): Promise<void> => {
    while (started < runs) {
      started++;
      const id = await engine.startRun(horde, {}, { provenance: 'bench' });
      if ((await engine.waitForRun(id)) !== 'succeeded') failed++;
    }
  };
  await Promise.all(Array.from({ length: Math.min(inFlight, runs) }, () => lane()));
  return failed;
}

/** `runs` runs in `Promise.all` batches of `size`. */
export async function driveBatches(engine: Engine, horde: HordeDef, runs: number, size: number): Promise<number> {
  let failed = 0;
  for (let done = 0; done < runs; done += size) {
    const batch = Array.from({ length: Math.min(size, runs - done) }, async () => {
      const id = await engine.startRun(horde, {}, { provenance: 'bench' });
      if ((await engine.waitForRun(id)) !== 'succeeded') failed++;
    });
    await Promise.all(batch);
  }
  return failed;
}

export async function w1Once(o: W1Options): Promise<W1Sample> {
  const run = o.shape === 'batches' ? driveBatches : drive;
  const dir = tempDir('w1');
  try {
    const hordeDir = writeHorde(dir, 'bench-w1', noopSteps());
    const engine = await createEngine(engineOptions(path.join(dir, 'data'), o.synchronous, o.maxParallelSteps, o.store));
    try {
      const { horde } = await engine.resolveHorde(hordeDir);
      await run(engine, horde, o.warmup, o.inFlight);
      const before = { ...engine.stats };
      const pauses = monitorEventLoopDelay({ resolution: 1 });
      pauses.enable();
      const all0 = process.cpuUsage();
      const c0 = mainThreadCpuUs();
      const t0 = now();
      const failed = await run(engine, horde, o.runs, o.inFlight);
      const ms = now() - t0;
      const c1 = mainThreadCpuUs();
      pauses.disable();
      const all = process.cpuUsage(all0);
      const after = engine.stats;
      return {
        ms,
        runsPerSec: (o.runs * 1000) / ms,
        usPerStep: (ms * 1000) / (o.runs * W1_STEPS),
        cpuAllUsPerStep: (all.user + all.system) / (o.runs * W1_STEPS),
        cpuUsPerStep: c0 === undefined || c1 === undefined ? Number.NaN : (c1 - c0) / (o.runs * W1_STEPS),
        maxPauseMs: pauses.max / 1e6,
        commits: after.commits - before.commits,
        batches: after.batches - before.batches,
        events: after.events - before.events,
        failed,
      };
    } finally {
      await engine.close();
    }
  } finally {
    removeDir(dir);
  }
}
