/** reportWork: a long operation's reports, throttled with a held one sent after the gap, then always a finished one (also on failure). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { WorkProgress } from '../../contract/index.js';
import { KowalskiError } from '../../core/index.js';
import { reportWork } from '../../engine/work.js';
import { simulatedTime } from '../support/sim-time.js';

function harness() {
  const time = simulatedTime(1000);
  const seen: WorkProgress[] = [];
  return { time, seen, reporting: { emit: (p: WorkProgress) => seen.push(p), now: () => time.clock.now(), timers: time.timers } };
}

test('the first report and each phase\'s first pass; one held back is sent once the gap has passed; then a finished frame with done === total', async () => {
  const h = harness();
  let go!: () => void;
  const held = new Promise<void>((resolve) => { go = resolve; });
  const work = reportWork('vault-reindex', h.reporting, async (onProgress) => {
    for (let done = 1; done <= 3; done++) onProgress({ phase: 'notes', done, total: null, item: `n${done}.md` });
    onProgress({ phase: 'embedded', done: 0, total: 10 });
    onProgress({ phase: 'embedded', done: 4, total: 10 });
    await held;
    onProgress({ phase: 'embedded', done: 10, total: 10 });
    return 'ok';
  });
  assert.deepEqual(h.seen.map((p) => `${p.phase} ${p.done}`), ['notes 1', 'embedded 0'], 'the rest is held back (no time passed)');
  // The slow batch: the bar is not left behind — the held report goes out once 100 ms have passed.
  h.time.advanceTo(1100);
  assert.deepEqual(h.seen.map((p) => `${p.phase} ${p.done}`), ['notes 1', 'embedded 0', 'embedded 4']);
  assert.deepEqual(h.time.pending(), []);
  go();
  assert.equal(await work, 'ok');
  assert.deepEqual(h.seen.slice(3), [
    { op: 'vault-reindex', phase: 'embedded', done: 10, total: 10, finished: false },
    { op: 'vault-reindex', phase: 'embedded', done: 10, total: 10, finished: true },
  ]);
  assert.ok(h.seen.slice(0, -1).every((p) => !p.finished));
});

test('a report held back just before a new phase, and one held in the new phase, are never lost: the held one goes out a gap after the last one sent', async () => {
  const h = harness();
  let go!: () => void;
  const held = new Promise<void>((resolve) => { go = resolve; });
  const work = reportWork('vault-reindex', h.reporting, async (onProgress) => {
    onProgress({ phase: 'notes', done: 1, total: null });
    onProgress({ phase: 'notes', done: 2, total: null }); // held at 1000
    h.time.advanceTo(1050);
    onProgress({ phase: 'embedded', done: 0, total: 100 }); // a new phase passes at 1050
    h.time.advanceTo(1060);
    onProgress({ phase: 'embedded', done: 64, total: 100 }); // held: the next batch is slow
    await held;
  });
  assert.deepEqual(h.seen.map((p) => `${p.phase} ${p.done}`), ['notes 1', 'embedded 0']);
  h.time.advanceTo(1100); // the notes phase's held report would have been due here
  assert.deepEqual(h.seen.map((p) => `${p.phase} ${p.done}`), ['notes 1', 'embedded 0'], 'a gap has not passed since embedded 0');
  h.time.advanceTo(1150);
  assert.deepEqual(h.seen.map((p) => `${p.phase} ${p.done}`), ['notes 1', 'embedded 0', 'embedded 64'], 'the bar shows the batch that was embedded while the next one waits');
  assert.deepEqual(h.time.pending(), []);
  go();
  await work;
});

test('a phase of unknown total finishes with total = done; a failure finishes with its code and rejects as the work did', async () => {
  const ok = harness();
  await reportWork('vault-reindex', ok.reporting, async (onProgress) => {
    onProgress({ phase: 'notes', done: 1, total: null });
    onProgress({ phase: 'notes', done: 2, total: null });
  });
  assert.deepEqual(ok.seen.at(-1), { op: 'vault-reindex', phase: 'notes', done: 2, total: 2, finished: true });
  assert.deepEqual(ok.time.pending(), [], 'the held report\'s timer is cancelled at the finish');

  const bad = harness();
  const failure = new KowalskiError('KW_ERR_MODEL_NOT_READY', 'the embedding server is down');
  await assert.rejects(reportWork('plugins-rescan', bad.reporting, async (onProgress) => {
    onProgress({ phase: 'folders', done: 1, total: 3 });
    throw failure;
  }), failure);
  assert.deepEqual(bad.seen.at(-1), { op: 'plugins-rescan', phase: 'folders', done: 1, total: 3, finished: true, error: 'KW_ERR_MODEL_NOT_READY' });

  const none = harness();
  await reportWork('plugins-rescan', none.reporting, async () => undefined);
  assert.deepEqual(none.seen, [{ op: 'plugins-rescan', phase: 'start', done: 0, total: 0, finished: true }], 'work that reported nothing still finishes');
});
