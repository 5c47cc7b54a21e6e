/** copyRunStore tells its onProgress of the rows copied, page by page, naming the table; the count ends at the rows copied. */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import type { ProgressReport } from '../../contract/index.js';
import { sqliteCopyEnd } from '../../engine/store/copy-ends.js';
import { copyRunStore } from '../../engine/store/copy.js';
import { openDatabase } from '../../engine/store/database.js';
import { tempDir } from '../../testkit/tmp.js';
import { miniHorde } from '../support/hordes.js';
import { testEngine } from '../support/engine.js';

test('a store copy reports the rows copied so far, per page, with the table', async (t) => {
  const root = tempDir(t, 'kw-copy-progress-');
  const home = path.join(root, 'home');
  const engine = await testEngine(t, {}, home);
  for (let i = 0; i < 3; i++) await engine.waitForRun(await engine.startRun(miniHorde(['a', 'b']), {}));
  await engine.close();

  const from = openDatabase(path.join(home, 'kowalski.sqlite'));
  const to = openDatabase(path.join(root, 'copy.sqlite'));
  try {
    const seen: ProgressReport[] = [];
    const report = copyRunStore(sqliteCopyEnd(from, 'source'), sqliteCopyEnd(to, 'target'), { chunk: 5, onProgress: (p) => seen.push(p) });
    const rows = report.tables.reduce((n, tb) => n + tb.rows, 0);
    assert.ok(seen.length > 1, 'more than one page');
    assert.ok(seen.every((p) => p.phase === 'rows' && p.total === null));
    assert.deepEqual(seen.map((p) => p.done), [...seen.map((p) => p.done)].sort((a, b) => a - b), 'the count only grows');
    assert.equal(seen.at(-1)!.done, rows);
    assert.ok(seen.some((p) => p.item === 'events') && seen.some((p) => p.item === 'runs'), 'names the tables');
  } finally {
    from.close();
    to.close();
  }
});
