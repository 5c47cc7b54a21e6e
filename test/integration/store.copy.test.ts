/**
 * copyStore page by page: with pages far smaller than the tables (7 rows), every table —
 * composite keys included (step_attempts by run, step and attempt) — arrives whole and
 * in order, SQLite → Postgres → SQLite, and new rows after the copy get fresh keys.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { copyStore } from '../../engine/index.js';
import { COPY_TABLES } from '../../engine/store/copy-tables.js';
import { testEngine, writeHorde } from '../support/engine.js';
import { freshPostgresUrl, pgTestEngine } from '../support/pg-engine.js';
import { dumpCopiedTables } from '../support/copy-dump.js';
import { tempDir } from '../../testkit/tmp.js';

const HOOKED = 'id = "hooked"\npipeline = ["work"]\n[[triggers]]\nname = "plain"\nkind = "webhook"\noverlap = "parallel"';

test('a copy in pages of 7 rows carries every row of 62 runs there and back; the copy takes new runs and firings after the copied ones', async (t) => {
  const home = tempDir(t, 'kw-copy-');
  writeHorde(path.join(home, 'hordes', 'hooked'), HOOKED, { work: 'kind = "noop"' });
  const engine = await testEngine(t, {}, home);
  const hook = { payload: '{}', contentType: 'application/json' };
  for (const id of ['d1', 'd2']) {
    const fired = await engine.triggers.webhook(await engine.triggers.webhookTarget('hooked', 'plain'), { ...hook, id });
    assert.ok(fired.outcome === 'started' && await engine.waitForRun(fired.runId) === 'succeeded');
  }
  const { horde } = await engine.resolveHorde(writeHorde(path.join(home, 'h'), 'id = "paged"\npipeline = ["a", "b", "c"]\nconfirm_commands = false', {
    a: 'kind = "noop"', b: 'kind = "verify"\nverify_command = "true"', c: 'kind = "noop"',
  }));
  const ids = await Promise.all(Array.from({ length: 60 }, () => engine.startRun(horde, {})));
  assert.ok((await Promise.all(ids.map((id) => engine.waitForRun(id)))).every((s) => s === 'succeeded'));
  await engine.close();
  const original = dumpCopiedTables(path.join(home, 'kowalski.sqlite'));

  const url = await freshPostgresUrl();
  const there = copyStore({ from: { kind: 'sqlite' }, to: { kind: 'postgres', url }, dataDir: home, chunk: 7 });
  assert.deepEqual(there.tables.map((r) => [r.table, r.rows]), COPY_TABLES.map((c) => [c.name, original[c.name]!.length]));
  assert.equal(there.runsVerified, 62);
  assert.equal(original.trigger_firings!.length, 2);
  for (const n of ['events', 'runs', 'step_attempts']) assert.ok(original[n]!.length >= 60, `${n}: many pages (${original[n]!.length} rows)`);

  const back = tempDir(t, 'kw-copy-back-');
  const returned = copyStore({ from: { kind: 'postgres', url }, to: { kind: 'sqlite' }, dataDir: back, chunk: 7 });
  assert.equal(returned.runsVerified, 62);
  assert.deepEqual(dumpCopiedTables(path.join(back, 'kowalski.sqlite')), original);

  // The Postgres copy takes new runs: the next global sequence number follows the copied ones.
  const { engine: node } = await pgTestEngine(t, { url, dataDir: home });
  const next = await node.startRun((await node.resolveHorde(path.join(home, 'h'))).horde, {});
  assert.equal(await node.waitForRun(next), 'succeeded');
  const events = node.eventsSince(0, 100_000);
  assert.deepEqual(events.map((e) => e.gseq), events.map((_, i) => i + 1), 'no gap, no repeat');
  // A redelivery of a copied firing starts nothing; a new delivery gets the next firing id.
  const target = await node.triggers.webhookTarget('hooked', 'plain');
  const again = await node.triggers.webhook(target, { ...hook, id: 'd1' });
  assert.equal(again.outcome, 'duplicate');
  const fresh = await node.triggers.webhook(target, { ...hook, id: 'd3' });
  assert.ok(fresh.outcome === 'started' && await node.waitForRun(fresh.runId) === 'succeeded');
  assert.deepEqual((await node.triggers.list()).find((v) => v.name === 'plain')?.lastFiring?.key, 'webhook:d3');
  assert.equal(node.listRuns({ limit: 100 }).length, 64);
});
