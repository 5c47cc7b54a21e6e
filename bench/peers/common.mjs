// What the peers' drivers share (copied beside each by install.sh): the arguments, the
// two timed shapes of W1, the park-then-resume phases in new processes, and the one JSON
// line a driver prints. Each driver gives `oneRun()` (a 6-step no-op run, true when it
// succeeded), `park(n)` (start n runs that stop before step 3; returns their ids) and
// `resumeAll(ids)` (let them go on; true for each that then succeeded).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

export const STEPS = 6;

export function args() {
  const arg = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
  const dir = arg('dir');
  if (dir === undefined) throw new Error('--dir=<a scratch folder> is required');
  return { dir, phase: arg('phase', 'all'), runs: Number(arg('runs', '500')), batch: Number(arg('batch', '50')), park: Number(arg('park', '200')), url: arg('url') };
}

const cpuUs = () => {
  const c = process.cpuUsage();
  return c.user + c.system;
};

async function oneAtATime(oneRun, n) {
  let failed = 0;
  for (let i = 0; i < n; i += 1) if (!(await oneRun())) failed += 1;
  return failed;
}

async function batches(oneRun, n, size) {
  let failed = 0;
  for (let done = 0; done < n; done += size) {
    const ok = await Promise.all(Array.from({ length: Math.min(size, n - done) }, () => oneRun()));
    failed += ok.filter((x) => !x).length;
  }
  return failed;
}

async function timed(drive, runs, warmup) {
  await drive(warmup);
  const cpu0 = cpuUs();
  const t0 = performance.now();
  const failed = await drive(runs);
  const ms = performance.now() - t0;
  const cpu = cpuUs() - cpu0;
  return { ms, runsPerSec: runs / (ms / 1000), usPerStep: (ms * 1000) / (runs * STEPS), cpuUsPerStep: cpu / (runs * STEPS), failed };
}

/** W1 one at a time and in Promise.all batches, in this process. */
export async function w1Shapes(oneRun, o) {
  const single = await timed((n) => oneAtATime(oneRun, n), o.runs, 20);
  const batched = await timed((n) => batches(oneRun, n, o.batch), o.runs, o.batch);
  return { oneAtATime: single, batches: batched };
}

/** Run this driver again in a new process for one phase; its last stdout line is JSON. */
export function phase(name, o) {
  const argv = [process.argv[1], `--phase=${name}`, `--dir=${o.dir}`, `--park=${o.park}`, ...(o.url === undefined ? [] : [`--url=${o.url}`])];
  const out = execFileSync(process.execPath, argv, { encoding: 'utf8', maxBuffer: 16 * 2 ** 20, timeout: 600_000 });
  return JSON.parse(out.trim().split('\n').at(-1));
}

/** The park phase (a process of its own): start `park` runs that stop before step 3, keep their ids. */
export async function parkPhase(park, o) {
  const ids = await park(o.park);
  fs.writeFileSync(path.join(o.dir, 'parked.json'), JSON.stringify(ids));
  return { parked: ids.length };
}

/** The resume phase (a new process): time from letting the first run go on to the last one's success. */
export async function resumePhase(resumeAll, o) {
  const ids = JSON.parse(fs.readFileSync(path.join(o.dir, 'parked.json'), 'utf8'));
  const t0 = performance.now();
  const ok = await resumeAll(ids);
  const ms = performance.now() - t0;
  return { ms, runs: ids.length, bad: ok.filter((x) => !x).length };
}

/** The driver's one JSON line. */
export function print(result) {
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

export function versionOf(pkg) {
  return JSON.parse(fs.readFileSync(path.join(import.meta.dirname, 'node_modules', pkg, 'package.json'), 'utf8')).version;
}
