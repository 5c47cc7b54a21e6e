/**
 * Wide: many slow steps at once. N runs of one `slow` step (200 ms, waiting, not on the
 * CPU) started together at max_parallel_steps = N: if the pool really runs N steps at
 * once, all are done in about one step's time. (Before 1251c47 the pool ran 8 at most.)
 */
import path from 'node:path';
import { createEngine } from '../engine/index.js';
import { engineOptions, removeDir, tempDir, writeHorde } from './setup.js';
import { now } from './stats.js';

/** The `slow` kind's sleep when $KW_BENCH_SLEEP_MS is not set, ms (bench/kinds/sleep.ts). */
export const WIDE_STEP_MS = 200;

export interface WideSample {
  /** From the first start to the last run's success, ms. */
  ms: number;
  /** Runs that did not succeed. */
  failed: number;
}

export async function wideOnce(runs: number): Promise<WideSample> {
  const dir = tempDir('wide');
  try {
    const engine = await createEngine(engineOptions(path.join(dir, 'data'), 'full', runs));
    try {
      const { horde } = await engine.resolveHorde(writeHorde(dir, 'bench-wide', [{ name: 'wait', kind: 'slow' }]));
      await engine.waitForRun(await engine.startRun(horde, {})); // the pool's threads up, the kind loaded
      const started = now();
      const ids = await Promise.all(Array.from({ length: runs }, () => engine.startRun(horde, {})));
      const states = await Promise.all(ids.map((id) => engine.waitForRun(id)));
      return { ms: now() - started, failed: states.filter((s) => s !== 'succeeded').length };
    } finally {
      await engine.close();
    }
  } finally {
    removeDir(dir);
  }
}
