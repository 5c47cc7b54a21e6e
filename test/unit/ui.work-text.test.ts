/** The progress bar's words for a `work` frame: the phase in words, done of total, or done alone while the total is unknown. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { workText } from '../../ui/src/work-text.js';

test('a work frame in words', () => {
  assert.equal(workText({ phase: 'embedded', done: 120, total: 400 }), 'Embedding notes: 120 of 400');
  assert.equal(workText({ phase: 'notes', done: 37, total: null }), 'Reading notes: 37');
  assert.equal(workText({ phase: 'folders', done: 3, total: 5 }), 'Checking plugin folders: 3 of 5');
  assert.equal(workText({ phase: 'entries', done: 1200, total: 4000 }), 'Unpacking the bundle: 1,200 of 4,000');
  assert.equal(workText({ phase: 'horde', done: 0, total: 1 }), 'Checking the horde: 0 of 1');
  assert.equal(workText({ phase: 'rows', done: 1, total: 2 }), 'rows: 1 of 2', 'a phase with no words here keeps its name');
});
