/**
 * The log stays the truth: after real runs (passes, failures, loop-back retries, approvals
 * granted and denied, a cancel, a restart that interrupts a step, a re-run, parallel
 * branches, a run left parked), every projection table rebuilt from the events alone —
 * into an empty database, one event at a time — equals, table by table and row by row, what
 * the engine wrote in its group commits.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { foldRun } from '../../actors/index.js';
import { decodeEvent, openDatabase } from '../../engine/index.js';
import { EventLog } from '../../engine/store/event-log.js';
import { Projections } from '../../engine/store/projections.js';
import { rebuildProjections } from '../../engine/store/rebuild.js';
import { sqliteRunStore } from '../../engine/store/run-store.js';
import { onPostgres } from '../../testkit/pg-store.js';
import { tempDir } from '../../testkit/tmp.js';
import { testEngine, writeHorde } from '../support/engine.js';

const NO_CONFIRM = 'confirm_commands = false';

/** Every projection table, each in its primary key's order. */
const TABLES = {
  runs: 'SELECT * FROM runs ORDER BY id',
  step_attempts: 'SELECT * FROM step_attempts ORDER BY run_id, step, attempt',
  approvals: 'SELECT * FROM approvals ORDER BY run_id, seq',
} as const;

function tablesOf(file: string): Record<keyof typeof TABLES, unknown[]> {
  const db = new Database(file, { readonly: true });
  try {
    return {
      runs: db.prepare(TABLES.runs).all(),
      step_attempts: db.prepare(TABLES.step_attempts).all(),
      approvals: db.prepare(TABLES.approvals).all(),
    };
  } finally {
    db.close();
  }
}

test('every projection rebuilt from the log alone equals what the engine wrote', { skip: onPostgres() ? 'reads the SQLite file' : false }, async (t) => {
  const dir = tempDir(t);
  const home = path.join(dir, 'home');
  const flag = path.join(dir, 'flag');
  const counter = path.join(dir, 'count');
  const gate = path.join(dir, 'gate');
  const hordes = {
    line: writeHorde(path.join(dir, 'line'), `id = "line"\npipeline = ["a", "b", "c"]\n${NO_CONFIRM}`, { a: 'kind = "noop"', b: 'kind = "noop"', c: 'kind = "noop"' }),
    fails: writeHorde(path.join(dir, 'fails'), `id = "fails"\npipeline = ["a", "bad", "after"]\n${NO_CONFIRM}`, {
      a: 'kind = "noop"', bad: 'kind = "verify"\nverify_command = "exit 3"', after: 'kind = "noop"',
    }),
    loop: writeHorde(path.join(dir, 'loop'), `id = "loop"\npipeline = ["fix", "check"]\n${NO_CONFIRM}\n[[edges]]\nfrom = "fix"\nto = "check"\n[[edges]]\nfrom = "check"\nto = "fix"\nwhen = "fail"\nmax_loops = 3`, {
      fix: 'kind = "noop"',
      check: `kind = "verify"\nverify_command = "n=$(cat ${counter} 2>/dev/null || echo 0); n=$((n+1)); echo $n > ${counter}; [ $n -ge 3 ]"`,
    }),
    ask: writeHorde(path.join(dir, 'ask'), 'id = "ask"\npipeline = ["a", "check", "b"]', { a: 'kind = "noop"', check: 'kind = "verify"\nverify_command = "true"', b: 'kind = "noop"' }),
    fork: writeHorde(path.join(dir, 'fork'), `id = "fork"\npipeline = ["a", "b", "c", "d"]\n${NO_CONFIRM}\n[[edges]]\nfrom = "a"\nto = "b"\n[[edges]]\nfrom = "a"\nto = "c"\n[[edges]]\nfrom = "b"\nto = "d"\n[[edges]]\nfrom = "c"\nto = "d"`, {
      a: 'kind = "noop"', b: 'kind = "noop"', c: 'kind = "noop"', d: 'kind = "noop"',
    }),
    long: writeHorde(path.join(dir, 'long'), `id = "long"\npipeline = ["s", "after"]\n${NO_CONFIRM}`, { s: 'kind = "verify"\nverify_command = "sleep 300"', after: 'kind = "noop"' }),
    held: writeHorde(path.join(dir, 'held'), `id = "held"\npipeline = ["g", "after"]\n${NO_CONFIRM}`, { g: 'kind = "gate"\n[[inputs]]\nid = "gate"\ntype = "text"', after: 'kind = "noop"' }),
    again: writeHorde(path.join(dir, 'again'), `id = "again"\npipeline = ["s"]\n${NO_CONFIRM}`, {
      s: `kind = "verify"\nverify_command = "if [ -f ${flag} ]; then exit 0; fi; sleep 300"`,
    }),
  };

  // First life: runs of every kind; two are cut by the close while a step runs.
  const first = await testEngine(t, { maxParallelSteps: 8 }, home);
  const horde = async (name: keyof typeof hordes) => (await first.resolveHorde(hordes[name])).horde;
  const line = await first.startRun(await horde('line'), {});
  const runs = await Promise.all([first.startRun(await horde('line'), {}), first.startRun(await horde('fails'), {}), first.startRun(await horde('loop'), {}), first.startRun(await horde('fork'), {}), first.startRun(await horde('fork'), {})]);
  for (const id of [line, ...runs]) await first.waitForRun(id);
  const granted = await first.startRun(await horde('ask'), {});
  const denied = await first.startRun(await horde('ask'), {});
  const parked = await first.startRun(await horde('ask'), {});
  for (const id of [granted, denied, parked]) assert.equal(await first.waitForRun(id), 'awaiting_input');
  await first.approve(granted);
  await first.deny(denied, { reason: 'not today' });
  assert.equal(await first.waitForRun(granted), 'succeeded');
  assert.equal(await first.waitForRun(denied), 'failed');
  const cancelled = await first.startRun(await horde('long'), {});
  await waitForAttempt(first, cancelled);
  await first.cancel(cancelled, { reason: 'changed my mind' });
  assert.equal(await first.waitForRun(cancelled), 'cancelled');
  const interrupted = await first.startRun(await horde('held'), { gate });
  const again = await first.startRun(await horde('again'), {});
  await waitForAttempt(first, interrupted);
  await waitForAttempt(first, again);
  await first.close();

  // Second life: both cut steps run again as attempt 2 (a thread's and a command's); a re-run.
  fs.writeFileSync(gate, 'open');
  fs.writeFileSync(flag, 'done');
  const second = await testEngine(t, { maxParallelSteps: 8 }, home);
  await second.recover();
  assert.equal(await second.waitForRun(interrupted), 'succeeded');
  assert.equal(await second.waitForRun(again), 'succeeded');
  const rerun = await second.rerun(line, { from: 'b' });
  assert.equal(await second.waitForRun(rerun), 'succeeded');
  await second.close();

  const file = path.join(home, 'kowalski.sqlite');
  const wrote = tablesOf(file);
  // What the runs above must have left, so the comparison covers every kind of row.
  const states = (rows: unknown[]): string[] => [...new Set(rows.map((r) => (r as { state: string }).state))].sort();
  assert.deepEqual(states(wrote.runs), ['awaiting_input', 'cancelled', 'failed', 'succeeded']);
  assert.deepEqual(states(wrote.step_attempts), ['cancelled', 'failed', 'interrupted', 'passed']);
  assert.deepEqual(states(wrote.approvals), ['denied', 'granted', 'pending']);
  assert.equal(wrote.runs.length, 13);

  const rebuiltFile = path.join(dir, 'rebuilt.sqlite');
  const source = openDatabase(file);
  const target = openDatabase(rebuiltFile);
  try {
    const store = sqliteRunStore(target);
    const counts = store.transaction(() => rebuildProjections(new EventLog(sqliteRunStore(source)), new Projections(store)))();
    assert.equal(counts.runs, 13);
  } finally {
    source.close();
    target.close();
  }
  // And against the log read directly, not through the projection code both sides share.
  const log = new Database(file, { readonly: true });
  const events = log.prepare('SELECT run_id, seq, type, v, at, data FROM events ORDER BY gseq').all() as { run_id: string; seq: number; type: string; v: number; at: number; data: string }[];
  log.close();
  const byRun = new Map<string, typeof events>();
  for (const e of events) byRun.set(e.run_id, [...(byRun.get(e.run_id) ?? []), e]);
  for (const row of wrote.runs as { id: string; state: string; last_seq: number; updated_at: number; created_at: number }[]) {
    const own = byRun.get(row.id)!;
    const folded = foldRun(row.id, own.map((e) => decodeEvent(e.run_id, e.seq, e.type, e.v, e.data)));
    assert.ok(folded.ok);
    assert.deepEqual([row.state, row.last_seq, row.updated_at, row.created_at], [folded.actor.state, own.at(-1)!.seq, own.at(-1)!.at, own[0]!.at], `run ${row.id}'s row is its log's`);
  }
  const started = events.filter((e) => e.type === 'step.started').map((e) => {
    const d = JSON.parse(e.data) as { step: string; attempt: number };
    return `${e.run_id}/${d.step}/${d.attempt}@${e.at}`;
  });
  assert.deepEqual((wrote.step_attempts as { run_id: string; step: string; attempt: number; started_at: number }[]).map((a) => `${a.run_id}/${a.step}/${a.attempt}@${a.started_at}`).sort(), started.sort(), 'one attempt row per step.started');
  const requested = events.filter((e) => e.type === 'approval.requested').map((e) => `${e.run_id}/${e.seq}`);
  assert.deepEqual((wrote.approvals as { run_id: string; seq: number }[]).map((a) => `${a.run_id}/${a.seq}`).sort(), requested.sort(), 'one approval row per approval.requested');

  const rebuilt = tablesOf(rebuiltFile);
  for (const table of Object.keys(TABLES) as (keyof typeof TABLES)[]) {
    assert.deepEqual(rebuilt[table], wrote[table], `${table} rebuilt from the log equals what the engine wrote`);
  }
});

/** Until the run's first step has a running attempt on disk. */
async function waitForAttempt(engine: Awaited<ReturnType<typeof testEngine>>, runId: string): Promise<void> {
  for (let i = 0; i < 2000; i++) {
    if (engine.getRun(runId).attempts.some((a) => a.state === 'running')) return;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`run ${runId} never started a step`);
}
