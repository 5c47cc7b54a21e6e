// DBOS Transact beside kowalski's W1 on the same Postgres (issue 18): a workflow of 6
// no-op steps, `--runs` runs one at a time and in Promise.all batches of `--batch`, after
// a warm-up. Prints one JSON line. Not part of kowalski (not installed by `npm ci`):
// copy this folder out, `npm install` there, and point KOWALSKI_BENCH_DBOS at it
// (bench/README.md). Run alone: node w1.mjs --url=postgres://…/db [--runs=500] [--batch=50]
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { DBOS } from '@dbos-inc/dbos-sdk';

const arg = (name, fallback) => process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? fallback;
const url = arg('url');
if (url === undefined) throw new Error('--url=postgres://… is required');
const runs = Number(arg('runs', '500'));
const batch = Number(arg('batch', '50'));
const STEPS = 6;

const noop = DBOS.registerStep(async () => undefined, { name: 'noop' });
const w1 = DBOS.registerWorkflow(async () => {
  for (let i = 0; i < STEPS; i += 1) await noop();
  return 'ok';
}, { name: 'w1' });

DBOS.setConfig({ name: 'kowalski-bench-w1', systemDatabaseUrl: url, logLevel: 'error' });
await DBOS.launch();

const one = async () => (await (await DBOS.startWorkflow(w1)()).getResult()) === 'ok' ? 0 : 1;
async function oneAtATime(n) {
  let failed = 0;
  for (let i = 0; i < n; i += 1) failed += await one();
  return failed;
}
async function batches(n) {
  let failed = 0;
  for (let done = 0; done < n; done += batch) {
    const results = await Promise.all(Array.from({ length: Math.min(batch, n - done) }, one));
    failed += results.reduce((a, b) => a + b, 0);
  }
  return failed;
}
async function timed(drive, warmup) {
  await drive(warmup);
  const t0 = performance.now();
  const failed = await drive(runs);
  const ms = performance.now() - t0;
  return { ms, runsPerSec: runs / (ms / 1000), usPerStep: (ms * 1000) / (runs * STEPS), failed };
}

const single = await timed(oneAtATime, 20);
const batched = await timed(batches, batch);
const version = JSON.parse(fs.readFileSync(new URL('./node_modules/@dbos-inc/dbos-sdk/package.json', import.meta.url), 'utf8')).version;
await DBOS.shutdown();
process.stdout.write(`${JSON.stringify({ dbos: version, runs, batch, oneAtATime: single, batches: batched })}\n`);
