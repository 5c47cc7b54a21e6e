/**
 * The Postgres run store writes the event log and the projections in bulk (one `unnest`
 * statement per kind of write, kinds in the order of a row's life: store/pg/session.ts).
 * The same writes, in the same transactions, through the same typed functions, must leave
 * exactly the rows SQLite's one-statement-per-row store leaves: a run inserted and settled
 * twice in one commit, an attempt started, spawned and finished in one commit, progress
 * before and after a settle, a run's running attempts cancelled with it, and text that
 * arrays must carry intact (quotes, backslashes, braces, commas, newlines, NULL, emoji).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { openDatabase } from '../../engine/store/database.js';
import { PgSession } from '../../engine/store/pg/session.js';
import { postgresRunStore } from '../../engine/store/pg/run-store.js';
import { migratePg } from '../../engine/store/pg/migrate.js';
import { openSyncPg } from '../../engine/store/pg/sync-pg.js';
import { testSyncPgModule } from '../../testkit/dist.js';
import { sqliteRunStore } from '../../engine/store/run-store.js';
import type { RunStore } from '../../engine/store/run-store.js';
import { freshDatabase, startPostgres, type Postgres } from '../../testkit/postgres.js';
import { tempDir } from '../../testkit/tmp.js';

let cluster: Postgres;
before(async () => {
  cluster = await startPostgres();
});
after(() => cluster?.stop());

const AWKWARD = ['say "hi"', 'back\\slash \\\\ two', '{braces},[and],commas', 'new\nline\ttab', 'NULL', '', '😀 ünïcödé', "it's"];

/** The same writes, in the same transactions, through the store's typed functions. */
function script(store: RunStore): void {
  let gseq = 0;
  const append = (runId: string, seq: number, data: string): void => void (gseq = store.events.append(runId, seq, 'step.started', 1, 1000 + seq, data));
  store.transaction(() => {
    store.runWrites.insert({ id: 'r1', hordeId: 'h', hordeHash: 'hash', provenance: AWKWARD[0]!, input: AWKWARD[1]!, at: 1000, state: 'queued', lastSeq: 1, finishedAt: null, errorCode: null, error: null });
    AWKWARD.forEach((text, i) => append('r1', i + 1, JSON.stringify({ text })));
    store.attemptWrites.start('r1', 'a', 1, 1001);
    store.attemptWrites.spawned('r1', 'a', 1, 4242, 'tok,en"1');
    store.attemptWrites.finish({ runId: 'r1', step: 'a', attempt: 1, at: 1002, state: 'passed', durationMs: 7, artifact: AWKWARD[2]!, summary: AWKWARD[3]!, errorCode: null, error: null });
    store.attemptWrites.start('r1', 'b', 1, 1002);
    // Two batches of one run in one commit: a progress, then a settle, then a progress again.
    store.runWrites.progress('r1', 1002, 3);
    store.runWrites.settle({ id: 'r1', state: 'running', at: 1002, lastSeq: 5, finishedAt: null, errorCode: null, error: null });
    store.runWrites.progress('r1', 1002, 8);
    store.runWrites.insert({ id: 'r2', hordeId: 'h', hordeHash: 'hash', provenance: 'api', input: '{}', at: 1003, state: 'running', lastSeq: 1, finishedAt: null, errorCode: null, error: null });
    append('r2', 1, AWKWARD[6]!);
  })();
  store.transaction(() => {
    store.attemptWrites.start('r2', 'a', 1, 1004);
    store.attemptWrites.interrupt('r2', 'a', 1, 1005);
    store.attemptWrites.start('r2', 'a', 2, 1005);
    // Two settles of one run in one commit: the last holds.
    store.runWrites.settle({ id: 'r2', state: 'running', at: 1005, lastSeq: 4, finishedAt: null, errorCode: null, error: null });
    store.runWrites.settle({ id: 'r2', state: 'failed', at: 1005, lastSeq: 5, finishedAt: 1005, errorCode: 'KW_ERR_X', error: AWKWARD[7]! });
    store.attemptWrites.cancelRunning('r2', 1005);
    // r1 finishes: its running attempt `b` is cancelled with it; `a` (passed) is left alone.
    store.runWrites.settle({ id: 'r1', state: 'cancelled', at: 1006, lastSeq: 9, finishedAt: 1006, errorCode: 'KW_ERR_RUN_CANCELLED', error: AWKWARD[4]! });
    store.attemptWrites.cancelRunning('r1', 1006);
    append('r1', 9, AWKWARD[5]!);
  })();
  assert.ok(gseq > 0);
}

function rows(store: RunStore): unknown {
  const norm = (r: object): object => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'bigint' ? Number(v) : v]));
  return {
    runs: ['r1', 'r2'].map((id) => norm(store.runReads.byId(id)!)),
    attempts: ['r1', 'r2'].flatMap((id) => store.attemptReads.ofRun(id).map(norm)),
    events: store.events.allAfter(0, 100).map(norm),
  };
}

test('bulk writes on Postgres leave exactly the rows SQLite\'s row-by-row writes leave', (t) => {
  const db = openDatabase(path.join(tempDir(t), 'k.sqlite'));
  t.after(() => db.close());
  const sqlite = sqliteRunStore(db);
  const pg = openSyncPg(freshDatabase(cluster.url, 'bulk'), { module: testSyncPgModule() });
  t.after(() => pg.close());
  migratePg(pg, 'bulk');
  const postgres = postgresRunStore(new PgSession(pg));
  script(sqlite);
  script(postgres);
  const expected = rows(sqlite) as { runs: Array<Record<string, unknown>>; attempts: Array<Record<string, unknown>> };
  assert.deepEqual(rows(postgres), expected);
  // What the script means, so that both stores being wrong the same way fails too.
  assert.deepEqual(expected.runs.map((r) => [r.id, r.state, r.last_seq, r.error]), [['r1', 'cancelled', 9, 'NULL'], ['r2', 'failed', 5, "it's"]]);
  assert.deepEqual(expected.attempts.map((a) => [a.run_id, a.step, a.attempt, a.state]), [
    ['r1', 'a', 1, 'passed'], ['r1', 'b', 1, 'cancelled'], ['r2', 'a', 1, 'interrupted'], ['r2', 'a', 2, 'cancelled'],
  ]);
});
