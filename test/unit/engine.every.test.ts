/** `every`: a call repeated on the engine's timers (the cluster's heartbeats and polls, the WAL guard), on a simulated clock. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { every } from '../../engine/base/timers.js';
import { simulatedTime } from '../support/sim-time.js';

test('calls at each interval, reading the interval again at each arming; rearm() counts from now', () => {
  const time = simulatedTime(0);
  const calls: number[] = [];
  let interval = 100;
  const loop = every(time.timers, time.clock, () => interval, () => calls.push(time.clock.now()));
  time.advanceTo(250);
  assert.deepEqual(calls, [100, 200]);
  interval = 40; // the next arming (after the call at 300) uses it
  time.advanceTo(390);
  assert.deepEqual(calls, [100, 200, 300, 340, 380]);
  loop.rearm(); // at 390: the call due at 420 moves to 430
  time.advanceTo(425);
  assert.deepEqual(calls.slice(5), []);
  time.advanceTo(430);
  assert.deepEqual(calls.slice(5), [430]);
  assert.deepEqual(time.pending(), [470], 'one call armed, never two');
});

test('stop() ends it, also from inside a call; rearm() after stop() arms nothing', () => {
  const time = simulatedTime(0);
  let calls = 0;
  const loop = every(time.timers, time.clock, () => 10, () => {
    calls++;
    if (calls === 3) loop.stop();
  });
  time.advanceTo(100);
  assert.equal(calls, 3);
  loop.rearm();
  assert.deepEqual(time.pending(), []);

  const outside = every(time.timers, time.clock, () => 10, () => assert.fail('stopped before its first call'));
  outside.stop();
  time.advanceTo(200);
  assert.deepEqual(time.pending(), []);
});

test('a call that throws: the error reaches the caller of the timer, and the next call is still armed', () => {
  const time = simulatedTime(0);
  let calls = 0;
  every(time.timers, time.clock, () => 10, () => {
    calls++;
    throw new Error('the database is unreachable');
  });
  assert.throws(() => time.advanceTo(10), /unreachable/);
  assert.deepEqual(time.pending(), [20]);
  assert.throws(() => time.advanceTo(20), /unreachable/);
  assert.equal(calls, 2);
});
