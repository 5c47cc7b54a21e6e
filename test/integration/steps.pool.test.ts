/** The step pool's threads: started as steps overlap, and steps spread over them before they share one. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { StepPool } from '../../steps/pool.js';
import { tempDir } from '../../testkit/tmp.js';
import { waitUntil } from '../fixtures/steps/wait.js';

/** A task: count itself running, then (when `hold`) wait without blocking its thread until released; answer its thread. */
const WORKER = `
import { threadId } from 'node:worker_threads';
export default async function ({ running, release, hold }) {
  Atomics.add(running, 0, 1);
  if (hold) await Atomics.waitAsync(release, 0, 0).value;
  return threadId;
}
`;

function shared(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4));
}

test('one step at a time starts one thread; overlapping steps each get a thread of their own before any two share one, up to stepsPerThread', async (t) => {
  const dir = tempDir(t);
  const filename = path.join(dir, 'worker.mjs');
  fs.writeFileSync(filename, WORKER);
  const pool = new StepPool({ filename, execArgv: [], threads: 3, stepsPerThread: 2 });
  t.after(() => pool.destroy());
  const running = shared();
  const release = shared();
  const run = (hold: boolean) => pool.run<number>(() => ({ running, release, hold }), () => undefined).done;

  const oneAtATime: number[] = [];
  for (let i = 0; i < 5; i++) oneAtATime.push(await run(false));
  assert.equal(new Set(oneAtATime).size, 1, `one thread ran them: ${oneAtATime.join(', ')}`);
  assert.equal(pool.started, 1);

  Atomics.store(running, 0, 0);
  const first = [run(true), run(true), run(true)];
  await waitUntil('three steps run', () => Atomics.load(running, 0) === 3, 20_000);
  assert.equal(pool.started, 3);
  const more = [run(true), run(true), run(true), run(true)];
  await waitUntil('six steps run', () => Atomics.load(running, 0) === 6, 20_000);
  assert.equal(pool.started, 3, 'no thread beyond `threads`');
  Atomics.store(release, 0, 1);
  Atomics.notify(release, 0);
  const threadsOfFirst = await Promise.all(first);
  assert.equal(new Set(threadsOfFirst).size, 3, `the first three overlapping steps ran on three threads: ${threadsOfFirst.join(', ')}`);
  const all = [...threadsOfFirst, ...(await Promise.all(more))];
  const perThread = new Map<number, number>();
  for (const id of all) perThread.set(id, (perThread.get(id) ?? 0) + 1);
  assert.equal(Atomics.load(running, 0), 7, 'the seventh ran once a place was free');
  assert.ok([...perThread.values()].every((n) => n <= 3), JSON.stringify([...perThread]));
});
