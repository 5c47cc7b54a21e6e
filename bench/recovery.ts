/**
 * Recovery. (a) 1,000 runs in flight (a slow step in the middle) are SIGKILLed; a new
 * process times createEngine + recover() until every run has a step running again or
 * is finished, and until all have succeeded. (b) 10,000 parked runs: start-up time and
 * resident memory of a fresh process (createEngine + recover()).
 */
import fs from 'node:fs';
import path from 'node:path';
import { FINAL_RUN_STATES } from '../actors/index.js';
import { createEngine } from '../engine/index.js';
import type { Engine } from '../engine/index.js';
import { runPhase, resultOf, send } from './proc.js';
import type { Sync } from './setup.js';
import { engineOptions, removeDir, tempDir, verifyStep, writeHorde } from './setup.js';
import type { StepSpec } from './setup.js';
import { now } from './stats.js';

/** s1, s2 no-op; s3 sleeps; s4–s6 no-op. */
function slowSteps(): StepSpec[] {
  return [1, 2, 3, 4, 5, 6].map((i) => ({ name: `s${i}`, kind: i === 3 ? 'slow' : 'noop' }));
}

/** Every run id in the database (listRuns pages 500 at a time). */
function allRunIds(engine: Engine): string[] {
  const ids: string[] = [];
  for (;;) {
    const page = engine.listRuns({ limit: 500, ...(ids.length === 0 ? {} : { cursor: ids[ids.length - 1]! }) });
    ids.push(...page.map((r) => r.id));
    if (page.length < 500) return ids;
  }
}

/** Runs that are not succeeded with exactly one passed attempt per step. */
function badRuns(engine: Engine, ids: readonly string[]): number {
  let bad = 0;
  for (const id of ids) {
    const view = engine.getRun(id);
    const ok = view.run.state === 'succeeded' && view.steps.every((s) => view.attempts.filter((a) => a.step === s.name && a.state === 'passed').length === 1);
    if (!ok) bad++;
  }
  return bad;
}

// ---------------------------------------------------------------- (a) in flight

export interface InFlightOptions {
  runs: number;
  synchronous: Sync;
  maxParallelSteps: number;
  /** The slow step's sleep in the process that is killed, ms. */
  sleepMs: number;
  /** Its sleep in the recovering process, ms (0: re-runs pass at once, so "all succeeded" measures the engine, not the sleep). */
  resumeSleepMs: number;
  /** SIGKILL once this many slow steps have finished. */
  killAfterSlow: number;
}

export interface InFlightSample {
  /** createEngine + recover() until every run has a step running again or is finished, ms. */
  resumeMs: number;
  /** createEngine + recover() until every run has succeeded, ms. */
  doneMs: number;
  /** createEngine alone, ms. */
  createMs: number;
  resumed: number;
  retried: number;
  /** Runs that had already succeeded before the kill. */
  finishedBefore: number;
  bad: number;
}

/** Child: start the runs, say when the kill should land, then keep going until killed. */
export async function recStart(dataDir: string, hordeDir: string, runs: number, synchronous: Sync, maxParallelSteps: number, killAfterSlow: number): Promise<void> {
  const engine = await createEngine(engineOptions(dataDir, synchronous, maxParallelSteps));
  let slowDone = 0;
  let told = false;
  let acked = false;
  const finished = new Set<string>();
  let allFinished: () => void = () => undefined;
  const everything = new Promise<void>((resolve) => {
    allFinished = resolve;
  });
  const tell = (): void => {
    if (told || !acked || slowDone < killAfterSlow) return;
    told = true;
    void send({ type: 'inflight', slowDone }).catch(() => undefined);
  };
  engine.on('run:event', ({ stored, state }) => {
    if (stored.event.type === 'step.finished' && stored.event.step === 's3') {
      slowDone++;
      tell();
    }
    if (FINAL_RUN_STATES.has(state)) {
      finished.add(stored.runId);
      if (finished.size === runs) allFinished();
    }
  });
  const { horde } = await engine.resolveHorde(hordeDir);
  await Promise.all(Array.from({ length: runs }, () => engine.startRun(horde, {}, { provenance: 'bench' })));
  acked = true;
  await send({ type: 'acked', runs });
  tell();
  // The parent kills this process; should everything finish first, say so.
  await everything;
  await send({ type: 'error', message: `all ${runs} runs finished before the kill` });
  await engine.close();
}

/** Child (a new process): recover and time it. */
export async function recResume(dataDir: string, synchronous: Sync, maxParallelSteps: number): Promise<void> {
  const started = new Map<string, number>();
  const finished = new Map<string, number>();
  const t0 = now();
  const engine = await createEngine(engineOptions(dataDir, synchronous, maxParallelSteps));
  const createMs = now() - t0;
  try {
    let waiting: { need: number; resolve: () => void } | undefined;
    engine.on('run:event', ({ stored, state }) => {
      if (stored.event.type === 'step.started' && !started.has(stored.runId)) started.set(stored.runId, now());
      if (FINAL_RUN_STATES.has(state) && !finished.has(stored.runId)) {
        finished.set(stored.runId, now());
        if (waiting !== undefined && finished.size >= waiting.need) waiting.resolve();
      }
    });
    const summary = await engine.recover();
    const resumed = summary.resumed;
    const missing = resumed.filter((id) => !started.has(id) && !finished.has(id));
    if (missing.length > 0) throw new Error(`${missing.length} resumed runs had no step started by the time recover() returned`);
    const resumeAt = Math.max(...resumed.map((id) => Math.min(started.get(id) ?? Infinity, finished.get(id) ?? Infinity)));
    if (finished.size < resumed.length) {
      await new Promise<void>((resolve) => {
        waiting = { need: resumed.length, resolve };
      });
    }
    const doneAt = Math.max(...resumed.map((id) => finished.get(id)!));
    const ids = allRunIds(engine);
    await send({
      type: 'result',
      resumeMs: resumeAt - t0,
      doneMs: doneAt - t0,
      createMs,
      resumed: resumed.length,
      retried: summary.retried.length,
      total: ids.length,
      bad: badRuns(engine, ids) + summary.failed.length,
    });
  } finally {
    await engine.close();
  }
}

export async function inFlightOnce(o: InFlightOptions): Promise<InFlightSample> {
  const dir = tempDir('rec');
  try {
    const hordeDir = writeHorde(dir, 'bench-rec', slowSteps());
    const dataDir = path.join(dir, 'data');
    const common = [o.synchronous, String(o.maxParallelSteps)];
    let killedAt: number | undefined;
    const first = await runPhase(['rec-start', dataDir, hordeDir, String(o.runs), ...common, String(o.killAfterSlow)], {
      env: { KW_BENCH_SLEEP_MS: String(o.sleepMs) },
      onMessage: (m, child) => {
        if (m.type === 'inflight' && killedAt === undefined) {
          killedAt = now();
          child.kill('SIGKILL');
        }
      },
    });
    if (first.signal !== 'SIGKILL') resultOf(first, 'rec-start'); // throws its error
    const r = resultOf(await runPhase(['rec-resume', dataDir, ...common], { env: { KW_BENCH_SLEEP_MS: String(o.resumeSleepMs) } }), 'rec-resume');
    return {
      resumeMs: Number(r.resumeMs),
      doneMs: Number(r.doneMs),
      createMs: Number(r.createMs),
      resumed: Number(r.resumed),
      retried: Number(r.retried),
      finishedBefore: Number(r.total) - Number(r.resumed),
      bad: Number(r.bad) + (o.runs - Number(r.total)),
    };
  } finally {
    removeDir(dir);
  }
}

// ---------------------------------------------------------------- (b) parked

/** Child: create `runs` runs that park at once (their first step waits for approval). */
export async function parkMany(dataDir: string, hordeDir: string, runs: number, synchronous: Sync): Promise<void> {
  const engine = await createEngine(engineOptions(dataDir, synchronous, 4));
  try {
    const { horde } = await engine.resolveHorde(hordeDir);
    const t0 = now();
    const chunk = 1000;
    for (let done = 0; done < runs; done += chunk) {
      await Promise.all(Array.from({ length: Math.min(chunk, runs - done) }, () => engine.startRun(horde, {}, { provenance: 'bench' })));
    }
    await send({ type: 'result', ms: now() - t0 });
  } finally {
    await engine.close();
  }
}

/** Child (a fresh process): createEngine + recover(), then the resident memory. */
export async function startup(dataDir: string, synchronous: Sync): Promise<void> {
  const t0 = now();
  const engine = await createEngine(engineOptions(dataDir, synchronous, 4));
  try {
    const summary = await engine.recover();
    const ms = now() - t0;
    const rss = process.memoryUsage().rss;
    await send({ type: 'result', ms, rssMb: rss / 2 ** 20, parked: summary.parked, resumed: summary.resumed.length });
  } finally {
    await engine.close();
  }
}

export interface ParkedSample {
  ms: number;
  rssMb: number;
  parked: number;
}

export interface ParkedSetup {
  dataDir: string;
  /** Creating the parked runs took this long, ms. */
  createMs: number;
  /** The database and its WAL, MB. */
  dbMb: number;
  cleanup(): void;
}

export async function createParked(runs: number, synchronous: Sync): Promise<ParkedSetup> {
  const dir = tempDir('parked');
  try {
    const hordeDir = writeHorde(dir, 'bench-parked', [verifyStep('v1'), { name: 's2', kind: 'noop' }]);
    const dataDir = path.join(dir, 'data');
    const r = resultOf(await runPhase(['park-many', dataDir, hordeDir, String(runs), synchronous], { limitMs: 300_000 }), 'park-many');
    let bytes = 0;
    for (const f of fs.readdirSync(dataDir)) if (f.startsWith('kowalski.sqlite')) bytes += fs.statSync(path.join(dataDir, f)).size;
    return { dataDir, createMs: Number(r.ms), dbMb: bytes / 2 ** 20, cleanup: () => removeDir(dir) };
  } catch (err) {
    removeDir(dir);
    throw err;
  }
}

export async function startupOnce(dataDir: string, synchronous: Sync): Promise<ParkedSample> {
  const r = resultOf(await runPhase(['startup', dataDir, synchronous]), 'startup');
  return { ms: Number(r.ms), rssMb: Number(r.rssMb), parked: Number(r.parked) };
}
