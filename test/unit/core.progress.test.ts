/** throttleProgress: at most one report per interval, but never the first, a new phase's first or a phase's last. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ProgressReport } from '../../contract/index.js';
import { NO_PROGRESS, throttleProgress } from '../../core/index.js';

function harness(ms?: number) {
  let t = 0;
  const seen: ProgressReport[] = [];
  const report = throttleProgress((p) => seen.push(p), () => t, ms);
  return { seen, report, advance: (by: number) => void (t += by) };
}

test('reports the first, then at most one per 100 ms, and always the last', () => {
  const h = harness();
  for (let done = 1; done <= 50; done++) {
    h.report({ phase: 'files', done, total: 50 });
    h.advance(10); // 10 ms per file: one report in ten passes
  }
  assert.deepEqual(h.seen.map((p) => p.done), [1, 11, 21, 31, 41, 50]);
});

test('a new phase reports at once; an unknown total has no last report forced', () => {
  const h = harness(1000);
  h.report({ phase: 'notes', done: 1, total: null });
  h.report({ phase: 'notes', done: 2, total: null });
  h.report({ phase: 'embedded', done: 1, total: 9 });
  h.report({ phase: 'embedded', done: 2, total: 9 });
  h.report({ phase: 'embedded', done: 9, total: 9 });
  assert.deepEqual(h.seen.map((p) => `${p.phase}:${p.done}`), ['notes:1', 'embedded:1', 'embedded:9']);
});

test('the interval is measured from the last report that passed', () => {
  const h = harness(100);
  h.report({ phase: 'rows', done: 1, total: 10 });
  h.advance(99);
  h.report({ phase: 'rows', done: 2, total: 10 });
  h.advance(1);
  h.report({ phase: 'rows', done: 3, total: 10 });
  assert.deepEqual(h.seen.map((p) => p.done), [1, 3]);
});

test('NO_PROGRESS takes any report and returns nothing', () => {
  assert.equal(NO_PROGRESS({ phase: 'x', done: 1, total: null }), undefined);
});
