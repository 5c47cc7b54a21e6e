/**
 * A watch trigger's debounce runs on the engine's clock and timers, not the wall clock:
 * a minute of simulated quiet settles a change in milliseconds of real time, and a write
 * inside the minute starts it again. Real files and real chokidar events; only time is simulated.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Timers } from '../../engine/index.js';
import { simulatedTime } from '../support/sim-time.js';
import { dir, sha256, watchWith } from '../support/watch.js';

const MINUTE = 60_000;

void test('a change settles when the simulated clock has been quiet for the debounce, and a write inside it starts the wait again', async (t) => {
  const root = dir(t);
  // Near the wall clock: the start scan compares files' mtimes with the engine's clock.
  const start = Date.now();
  const time = simulatedTime(start);
  const wallStart = performance.now();
  let armed = (): void => undefined;
  // The simulated timers, telling the recorder when one is armed (so the test waits on an event, not a pause).
  const timers: Timers = { at: (at, fn) => { const cancel = time.timers.at(at, fn); armed(); return cancel; } };
  const { rec } = await watchWith(t, { path: root, debounceMs: MINUTE, clock: time.clock, timers });
  armed = () => rec.note();
  const file = path.join(root, 'in.csv');

  fs.writeFileSync(file, 'A');
  await rec.until(() => time.pending().includes(start + MINUTE), 'the settle timer, a simulated minute ahead');
  time.advanceTo(start + MINUTE / 2);
  fs.writeFileSync(file, 'AB');
  await rec.until(() => time.pending().includes(start + MINUTE / 2 + MINUTE), 'the settle timer armed again from the second write');
  time.advanceTo(start + MINUTE);
  assert.deepEqual(time.pending(), [start + MINUTE / 2 + MINUTE], 'the first write\'s timer was cancelled');
  assert.equal(rec.changes.length, 0, 'nothing settles before a whole simulated minute of quiet');

  // Drive the clock to each timer due until the change arrives (a late file event may arm one more).
  for (let i = 0; i < 5 && rec.changes.length === 0; i++) {
    const next = time.pending()[0];
    if (next !== undefined) time.advanceTo(next);
    await rec.until(() => rec.changes.length > 0 || time.pending().length > 0, 'the change, or another settle timer');
  }
  const [change, ...more] = rec.changes;
  assert.deepEqual(more, []);
  assert.equal(change?.hash, sha256('AB'), 'one change, with the final content');
  assert.equal(change?.kind, 'added');
  assert.ok(performance.now() - wallStart < MINUTE / 2, 'a simulated minute and a half took far less real time');
});
