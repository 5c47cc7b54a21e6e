/**
 * `node --cpu-prof --cpu-prof-dir=DIR dist/bench/profile-w1.js [--sync=full|normal]
 * [--runs=N] [--in-flight=N] [--pg]`: W1 alone, for a CPU profile of the engine's main
 * thread; `--pg` stores the runs on a throwaway Postgres cluster (fsync on) instead of SQLite.
 * Prints wall and main-thread CPU per step; `profile-summary.js DIR/*.cpuprofile --steps=N`
 * then sums the profile's self time per function and per file.
 */
import { freshDatabase, startPostgres } from '../testkit/postgres.js';
import { numberOption, option } from './args.js';
import { W1_STEPS, w1Once } from './w1.js';
import type { Sync } from './setup.js';

const synchronous = option('sync', 'normal') as Sync;
const runs = numberOption('runs', 1000);
const inFlight = numberOption('in-flight', 1);
const cluster = process.argv.includes('--pg') ? await startPostgres({ fsync: true }) : undefined;
try {
  const store = cluster === undefined ? undefined : { url: freshDatabase(cluster.url, 'profile') };
  const s = await w1Once({ synchronous, runs, inFlight, maxParallelSteps: inFlight === 1 ? 1 : 50, warmup: 50, store });
  process.stdout.write(
    `W1 ${store === undefined ? 'SQLite' : 'Postgres'} ${synchronous}, ${inFlight} in flight, ${runs} runs (${runs * W1_STEPS} steps): ${s.usPerStep.toFixed(0)} µs/step wall, ` +
      `${s.cpuUsPerStep.toFixed(0)} µs/step main-thread CPU, ${s.cpuAllUsPerStep.toFixed(0)} µs/step all threads, longest pause ${s.maxPauseMs.toFixed(1)} ms, ${s.commits} commits, ${s.events} events, ${s.failed} failed\n`,
  );
} finally {
  await cluster?.stop();
}
