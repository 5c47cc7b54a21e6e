/**
 * Following the vault's audit (engine/vault/search/write-follower.ts), over a real audit
 * table (SQLite's, the same functions as Postgres's): each call gives the notes written
 * since the one before, every note once; the cursor starts below a write in flight when the
 * follower is made, and never passes a pending write, whose note is given again until it settles.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { openDatabase } from '../../engine/store/database.js';
import { noteWriteQueries } from '../../engine/store/sql/note-writes.js';
import type { NoteWriteQueries } from '../../engine/store/sql/note-writes.js';
import { followWrites } from '../../engine/vault/search/index.js';
import { cleanups } from '../../testkit/cleanup.js';
import { tempDir } from '../../testkit/tmp.js';

function audit(t: TestContext): { q: NoteWriteQueries; intent: (path: string) => number } {
  const db = openDatabase(path.join(tempDir(t), 'k.sqlite'));
  cleanups(t)(() => db.close());
  const q = noteWriteQueries(db);
  const intent = (p: string): number => q.insertIntent({
    at: 1, op: 'append', path: p, bytes_before: 0, bytes_after: 1, content: 'x', sha256_before: null, sha256_after: null,
    session_id: null, agent: null, trace_id: null, call_key: null, by: 'cli', reverts: null,
  });
  return { q, intent };
}

test('each call gives the notes written since the one before, each once; nothing new is nothing', (t) => {
  const { q, intent } = audit(t);
  q.markDone(intent('old.md'), 2);
  const follow = followWrites(q);
  assert.deepEqual(follow(), [], 'what was written before it was made is the start\'s rescan\'s');
  for (const p of ['a.md', 'b.md', 'a.md']) q.markDone(intent(p), 2);
  assert.deepEqual(follow(), ['a.md', 'b.md']);
  assert.deepEqual(follow(), []);
  const failed = intent('c.md');
  q.markFailed(failed, 2, '{"code":"KW_ERR_VAULT_WRITE_INTERRUPTED","message":"cut"}');
  assert.deepEqual(follow(), ['c.md'], 'a failed write is passed too (the note may have changed)');
});

test('a pending write holds the cursor: its note and those after it come again until it settles', (t) => {
  const { q, intent } = audit(t);
  const follow = followWrites(q);
  q.markDone(intent('a.md'), 2);
  const pending = intent('slow.md');
  q.markDone(intent('b.md'), 2);
  assert.deepEqual(follow(), ['a.md', 'slow.md', 'b.md']);
  assert.deepEqual(follow(), ['slow.md', 'b.md'], 'from the pending write on, again');
  q.markDone(pending, 3);
  assert.deepEqual(follow(), ['slow.md', 'b.md'], 'once more, now settled');
  assert.deepEqual(follow(), []);
});

test('made while a write is in flight, it starts below that write', (t) => {
  const { q, intent } = audit(t);
  q.markDone(intent('before.md'), 2);
  const inFlight = intent('flying.md');
  q.markDone(intent('after.md'), 2);
  const follow = followWrites(q);
  q.markDone(inFlight, 3);
  assert.deepEqual(follow(), ['flying.md', 'after.md']);
  assert.deepEqual(follow(), []);
});
