/** The CLI's progress line: drawn in place on a terminal, never when piped or with --json. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { progressLine, progressText } from '../../bin/commands/progress-line.js';

function fakeStream(isTTY: boolean, columns?: number) {
  const writes: string[] = [];
  return { writes, stream: { isTTY, ...(columns === undefined ? {} : { columns }), write: (t: string) => writes.push(t) } };
}

test('on a terminal: each report redraws the line in place; end adds one newline', () => {
  const { writes, stream } = fakeStream(true);
  let t = 0;
  const line = progressLine('backup', { stream, now: () => t });
  line.report({ phase: 'files', done: 1, total: 4 });
  t += 200;
  line.report({ phase: 'files', done: 2, total: 4 });
  line.report({ phase: 'files', done: 3, total: 4 }); // within 100 ms of the last: skipped
  line.report({ phase: 'files', done: 4, total: 4 }); // the last: always drawn
  line.end();
  assert.deepEqual(writes, [
    '\r\x1b[2Kbackup: 1/4 files (25 %)',
    '\r\x1b[2Kbackup: 2/4 files (50 %)',
    '\r\x1b[2Kbackup: 4/4 files (100 %)',
    '\n',
  ]);
});

test('piped (not a TTY) or with --json: nothing is written, not even the newline', () => {
  for (const [isTTY, json] of [[false, false], [true, true], [false, true]] as const) {
    const { writes, stream } = fakeStream(isTTY);
    const line = progressLine('backup', { stream, json, now: () => 0 });
    line.report({ phase: 'files', done: 1, total: 1 });
    line.end();
    assert.deepEqual(writes, [], `isTTY ${isTTY}, json ${json}`);
  }
});

test('nothing reported: end writes no newline', () => {
  const { writes, stream } = fakeStream(true);
  progressLine('restore', { stream }).end();
  assert.deepEqual(writes, []);
});

test('an unknown total shows the count alone; the item follows; a narrow terminal cuts the line', () => {
  assert.equal(progressText('store copy', { phase: 'rows', done: 1200, total: null, item: 'events' }), 'store copy: 1200 rows  events');
  assert.equal(progressText('reindex', { phase: 'embedded', done: 0, total: 0 }), 'reindex: 0/0 embedded (100 %)');
  const { writes, stream } = fakeStream(true, 12);
  progressLine('backup', { stream, now: () => 0 }).report({ phase: 'files', done: 1, total: 4 });
  assert.equal(writes[0], '\r\x1b[2Kbackup: 1/4'); // 11 characters: one column is left for the cursor
});

test('end draws the last count the throttle held back (a total unknown has no forced last report)', () => {
  const { writes, stream } = fakeStream(true);
  const line = progressLine('reindex', { stream, now: () => 0 });
  for (let done = 1; done <= 5; done++) line.report({ phase: 'notes', done, total: null });
  line.end();
  assert.deepEqual(writes, ['\r\x1b[2Kreindex: 1 notes', '\r\x1b[2Kreindex: 5 notes', '\n']);
});
