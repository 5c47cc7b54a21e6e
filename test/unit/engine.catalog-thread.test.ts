/** The catalog read in a worker thread is the very catalog read in-process: plain data survives the crossing. */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { catalogThread } from '../../engine/catalog-thread.js';
import { builtinKindNames, listHordes, packageRoot } from '../../engine/index.js';
import { FIXTURES, writeHorde } from '../fixtures/hordes/temp-horde.js';
import { cleanups } from '../../testkit/cleanup.js';
import { waitUntil } from '../fixtures/steps/wait.js';

void test('the thread answers the same catalog as listHordes, valid and invalid hordes alike, and starts again after close', async (t) => {
  const broken = writeHorde({ 'horde.md': '---\nid = "broken"\npipeline = ["a", "a"]\nworkdir = "/abs"\n---\n' }, 'broken');
  cleanups(t)(broken.cleanup);
  const knownKinds = [...builtinKindNames()];
  const builtinDir = path.join(packageRoot(import.meta.url), 'hordes');
  const thread = catalogThread();
  cleanups(t)(() => thread.close());

  for (const userDir of [FIXTURES, broken.root]) {
    const inProcess = await listHordes({ builtinDir, userDir, knownKinds: new Set(knownKinds) });
    const threaded = await thread.read({ builtinDir, userDir, knownKinds });
    assert.ok(threaded.entries.length >= 5);
    assert.deepEqual(threaded, inProcess);
  }
  const invalid = (await thread.read({ userDir: broken.root, knownKinds })).entries[0];
  assert.equal(invalid?.result.ok, false);

  await thread.close();
  const again = await thread.read({ builtinDir, knownKinds });
  assert.deepEqual(again.entries.map((e) => e.id).sort(), (await listHordes({ builtinDir, knownKinds: new Set(knownKinds) })).entries.map((e) => e.id).sort());
});

void test('the thread ends after its idle time, giving its memory back, and the next read starts a new one', async (t) => {
  const knownKinds = [...builtinKindNames()];
  const builtinDir = path.join(packageRoot(import.meta.url), 'hordes');
  const thread = catalogThread(100);
  cleanups(t)(() => thread.close());
  const first = await thread.read({ builtinDir, knownKinds });
  const id = thread.threadId();
  assert.notEqual(id, undefined);
  await waitUntil('the idle thread ends', () => thread.threadId() === undefined, 5000);
  assert.deepEqual(await thread.read({ builtinDir, knownKinds }), first);
  assert.notEqual(thread.threadId(), undefined);
  assert.notEqual(thread.threadId(), id, 'a new thread answered');
});
