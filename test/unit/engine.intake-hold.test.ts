/** The committer's intake hold, on a driven microsecond clock: when it waits, and its bound. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { IntakeHold } from '../../engine/runs/intake-hold.js';

function hold(maxWaitUs = 500): { hold: IntakeHold; advance(us: number): void } {
  let now = 1_000;
  return { hold: new IntakeHold({ maxWaitUs, nowUs: () => now }), advance: (us) => void (now += us) };
}

test('nothing arriving: the first look commits (a step result, an approval, a lone delivery)', () => {
  const { hold: h } = hold();
  h.begin();
  assert.equal(h.shouldWait(), false);
  h.arrive()();
  h.begin();
  assert.equal(h.shouldWait(), false, 'a delivery already handed over before begin() is not waited for');
  assert.deepEqual(h.stats, { waits: 0, held: 0 });
});

test('a delivery on its way holds the commit until it is handed over, never past the bound', () => {
  const { hold: h, advance } = hold(500);
  const handedOver = h.arrive();
  h.begin();
  assert.equal(h.shouldWait(), true);
  advance(200);
  assert.equal(h.shouldWait(), true);
  handedOver();
  handedOver(); // twice is once
  assert.equal(h.inProgress, 0);
  assert.equal(h.shouldWait(), false);

  const stuck = h.arrive();
  h.begin();
  assert.equal(h.shouldWait(), true);
  advance(500);
  assert.equal(h.shouldWait(), false, 'the bound ends the wait even with a delivery still on its way');
  stuck();
  assert.deepEqual(h.stats, { waits: 3, held: 2 });
});

test('deliveries still arriving keep the commit one more turn each, until a turn brings none', () => {
  const { hold: h, advance } = hold(500);
  h.begin();
  h.arrive()();
  assert.equal(h.shouldWait(), true, 'one arrived since begin()');
  advance(10);
  h.arrive()();
  h.arrive()();
  assert.equal(h.shouldWait(), true);
  advance(10);
  assert.equal(h.shouldWait(), false, 'a turn with no arrival commits');
});
