/** A job process (engine/threads/job-process.ts) answers as a thread does, ends when idle or closed, and fails what it leaves pending. */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { CatalogJob } from '../../engine/catalog-thread.js';
import { builtinKindNames, listHordes, packageRoot } from '../../engine/index.js';
import type { Catalog } from '../../engine/horde/index.js';
import { jobProcess } from '../../engine/threads/index.js';
import { cleanups } from '../../testkit/cleanup.js';
import { waitUntil } from '../fixtures/steps/wait.js';

const catalogModule = new URL('../../engine/catalog-thread.ts', import.meta.url).href;
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

void test('a job process answers the catalog listHordes reads, ends after its idle time (its pid gone), and the next job starts a new one', async (t) => {
  const knownKinds = [...builtinKindNames()];
  const builtinDir = path.join(packageRoot(import.meta.url), 'hordes');
  const jobs = jobProcess<CatalogJob, Catalog>(catalogModule, 'catalog.worker', 100);
  cleanups(t)(() => jobs.close());
  const first = await jobs.run({ builtinDir, knownKinds });
  const pid = jobs.threadId();
  assert.ok(pid !== undefined && pid !== process.pid);
  assert.deepEqual(first, await listHordes({ builtinDir, knownKinds: new Set(knownKinds) }));
  await waitUntil('the idle process ends', () => jobs.threadId() === undefined && !alive(pid), 10_000);
  assert.deepEqual(await jobs.run({ builtinDir, knownKinds }), first);
  assert.notEqual(jobs.threadId(), pid, 'a new process answered');
});

void test('close ends the process and fails the job it was doing with KW_ERR_INTERNAL; a later job starts a new one', async (t) => {
  const knownKinds = [...builtinKindNames()];
  const builtinDir = path.join(packageRoot(import.meta.url), 'hordes');
  const jobs = jobProcess<CatalogJob, Catalog>(catalogModule, 'catalog.worker');
  cleanups(t)(() => jobs.close());
  const pending = jobs.run({ builtinDir, knownKinds });
  const pid = jobs.threadId()!;
  await jobs.close();
  await assert.rejects(pending, (err: Error & { code?: string }) => err.code === 'KW_ERR_INTERNAL');
  assert.equal(alive(pid), false);
  assert.ok((await jobs.run({ builtinDir, knownKinds })).entries.length >= 5);
});
