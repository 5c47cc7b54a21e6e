/**
 * W2: approval latency. 200 runs park at step 3 (a `verify` step: confirm_commands is
 * on), that engine closes; a new process approves all 200 and times the first approve
 * to the last success, then checks from the database that every step of every run has
 * exactly one passed attempt.
 */
import path from 'node:path';
import { createEngine } from '../engine/index.js';
import { FINAL_RUN_STATES } from '../actors/index.js';
import { runPhase, resultOf, send } from './proc.js';
import type { Sync } from './setup.js';
import { engineOptions, removeDir, tempDir, verifyStep, writeHorde } from './setup.js';
import { now } from './stats.js';

export interface W2Options {
  runs: number;
  synchronous: Sync;
  maxParallelSteps: number;
  /** W2-review: step 3 is a `review` of step 2's artifact (no command) instead of a `verify`. */
  review?: boolean;
}

export interface W2Sample {
  /** First approve to last success, ms. */
  ms: number;
  /** Runs parked before the restart. */
  parked: number;
  /** Runs that did not end with exactly one passed attempt per step (must be 0). */
  bad: number;
  /** How long parking them took in the first process, ms. */
  parkMs: number;
}

/** Phase 1 (child): start `runs` runs, wait until each is awaiting input, close. */
export async function w2Park(dataDir: string, hordeDir: string, runs: number, synchronous: Sync, maxParallelSteps: number): Promise<void> {
  const engine = await createEngine(engineOptions(dataDir, synchronous, maxParallelSteps));
  try {
    const { horde } = await engine.resolveHorde(hordeDir);
    const t0 = now();
    const states = await Promise.all(Array.from({ length: runs }, async () => engine.waitForRun(await engine.startRun(horde, {}, { provenance: 'bench' }))));
    const ms = now() - t0;
    const parked = states.filter((s) => s === 'awaiting_input').length;
    await send({ type: 'result', parked, ms });
  } finally {
    await engine.close();
  }
}

/** Phase 2 (child, a new process): approve every parked run, time it, check the attempts. */
export async function w2Approve(dataDir: string, synchronous: Sync, maxParallelSteps: number): Promise<void> {
  const engine = await createEngine(engineOptions(dataDir, synchronous, maxParallelSteps));
  try {
    const ids = engine.listRuns({ status: 'awaiting_input', limit: 500 }).map((r) => r.id);
    const open = new Set(ids);
    let last = 0;
    let resolveAll: () => void = () => undefined;
    const allDone = new Promise<void>((resolve) => {
      resolveAll = resolve;
    });
    engine.on('run:event', ({ stored, state }) => {
      if (FINAL_RUN_STATES.has(state) && open.delete(stored.runId)) {
        last = now();
        if (open.size === 0) resolveAll();
      }
    });
    const t0 = now();
    await Promise.all(ids.map((id) => engine.approve(id, { by: 'bench' })));
    await allDone;
    const ms = last - t0;
    let bad = 0;
    for (const id of ids) {
      const view = engine.getRun(id);
      const ok = view.run.state === 'succeeded' && view.steps.every((s) => view.attempts.filter((a) => a.step === s.name && a.state === 'passed').length === 1);
      if (!ok) bad++;
    }
    await send({ type: 'result', ms, runs: ids.length, bad });
  } finally {
    await engine.close();
  }
}

export async function w2Once(o: W2Options): Promise<W2Sample> {
  const dir = tempDir(o.review === true ? 'w2-review' : 'w2');
  try {
    const steps = [
      { name: 's1', kind: 'noop' }, o.review === true ? { name: 's2', kind: 'write' } : { name: 's2', kind: 'noop' }, o.review === true ? { name: 's3', kind: 'review' } : verifyStep('s3'),
      { name: 's4', kind: 'noop' }, { name: 's5', kind: 'noop' }, { name: 's6', kind: 'noop' },
    ];
    const hordeDir = writeHorde(dir, 'bench-w2', steps);
    const dataDir = path.join(dir, 'data');
    const common = [o.synchronous, String(o.maxParallelSteps)];
    const parked = resultOf(await runPhase(['w2-park', dataDir, hordeDir, String(o.runs), ...common]), 'w2-park');
    const approved = resultOf(await runPhase(['w2-approve', dataDir, ...common]), 'w2-approve');
    return { ms: Number(approved.ms), parked: Number(parked.parked), bad: Number(approved.bad) + (o.runs - Number(approved.runs)), parkMs: Number(parked.ms) };
  } finally {
    removeDir(dir);
  }
}
