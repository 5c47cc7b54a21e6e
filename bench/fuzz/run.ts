/**
 * Fuzzing (a script, not a CI test; issue 16): `--n` seeded inputs against one target, each
 * checked for a crash (an exception the target does not answer with a stable code, a 5xx
 * the API does not document, an unhandled rejection), a hang (no answer within
 * `--timeout-ms`) and a write outside the data folder.
 *
 *   node --import tsx bench/fuzz/run.ts --target=loader|bundle|api [--n=…] [--seed=1] [--from=0] [--timeout-ms=10000] [--max-seconds=…]
 *
 * Prints one markdown table (counts, time, the outcomes seen most) and `FAILURE` lines
 * naming the input (`--seed=S --from=I --n=1` draws it again); exit status 1 on any failure.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { numberOption, option } from '../args.js';
import { changes, snapshot } from './outside.js';
import { Rng } from './rng.js';
import type { FuzzTarget } from './target.js';
import { apiTarget } from './api.js';
import { bundleTarget } from './bundle.js';
import { loaderTarget } from './loader.js';

const TARGETS: Record<string, { make: (dataDir: string, root: string) => Promise<FuzzTarget>; n: number; checkEvery: number }> = {
  loader: { make: loaderTarget, n: 1_000_000, checkEvery: 1000 },
  bundle: { make: bundleTarget, n: 100_000, checkEvery: 1 },
  api: { make: apiTarget, n: 100_000, checkEvery: 10 },
};

const name = option('target', 'loader');
const spec = TARGETS[name];
if (spec === undefined) throw new Error(`--target must be one of ${Object.keys(TARGETS).join(', ')}, not ${name}`);
const N = numberOption('n', spec.n);
const SEED = numberOption('seed', 1);
const FROM = numberOption('from', 0);
const TIMEOUT_MS = numberOption('timeout-ms', 10_000);
/** Stop early (the table then counts the inputs actually fed), e.g. to fit a time box. */
const MAX_SECONDS = numberOption('max-seconds', Infinity);

const root = fs.mkdtempSync(path.join(os.tmpdir(), `kw-fuzz-${name}-`));
const dataDir = path.join(root, 'data');
fs.mkdirSync(path.join(root, 'outside'), { recursive: true });
fs.writeFileSync(path.join(root, 'outside', 'canary'), 'nothing may change this folder\n');
fs.mkdirSync(dataDir);
const failures: string[] = [];
const count = { crashes: 0, hangs: 0, outsideWrites: 0 };
const outcomes = new Map<string, number>();
let current = -1;
process.on('unhandledRejection', (err) => {
  count.crashes++;
  failures.push(`input ${current}: unhandled rejection: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
});

const target = await spec.make(dataDir, root);
let before = snapshot(root, 'data');
const began = performance.now();
let fed = 0;
for (let i = FROM; i < FROM + N && performance.now() - began < MAX_SECONDS * 1000; i++) {
  current = i;
  fed++;
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<'hang'>((resolve) => (timer = setTimeout(() => resolve('hang'), TIMEOUT_MS)));
  try {
    const outcome = await Promise.race([target.one(i, new Rng(SEED, i)), hang]);
    if (outcome === 'hang') {
      count.hangs++;
      failures.push(`input ${i}: no answer in ${TIMEOUT_MS} ms`);
    } else outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  } catch (err) {
    count.crashes++;
    failures.push(`input ${i}: ${err instanceof Error ? err.stack ?? err.message : String(err)}`);
  } finally {
    clearTimeout(timer);
  }
  if ((i - FROM) % spec.checkEvery === 0 || i === FROM + N - 1) {
    const after = snapshot(root, 'data');
    const changed = changes(before, after);
    if (changed.length > 0) {
      count.outsideWrites++;
      failures.push(`input ${i} (or one of the ${spec.checkEvery} before it): written outside the data folder: ${changed.slice(0, 5).join(', ')}`);
      before = after;
    }
  }
  if ((i - FROM + 1) % Math.max(1, Math.floor(N / 20)) === 0) process.stderr.write(`${name}: ${i - FROM + 1} inputs, ${Math.round((performance.now() - began) / 1000)} s, ${failures.length} failures\n`);
}
const seconds = (performance.now() - began) / 1000;
await target.close();
const seen = [...outcomes].sort((a, b) => b[1] - a[1]).slice(0, 12).map(([o, c]) => `${o} ${c}`).join('; ');
process.stdout.write(`| target | inputs | seconds | inputs/s | crashes | hangs | outside writes | outcomes (most seen) |\n|---|---|---|---|---|---|---|---|\n`);
process.stdout.write(`| ${name} | ${fed}${fed < N ? ` of ${N} (stopped at --max-seconds)` : ''} | ${seconds.toFixed(0)} | ${(fed / seconds).toFixed(0)} | ${count.crashes} | ${count.hangs} | ${count.outsideWrites} | ${seen} |\n`);
for (const f of failures.slice(0, 30)) process.stdout.write(`FAILURE (seed ${SEED}) ${f}\n`);
fs.rmSync(root, { recursive: true, force: true });
process.exitCode = failures.length > 0 ? 1 : 0;
