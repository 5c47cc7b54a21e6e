/**
 * Golden event logs (test/golden/*.jsonl) written by earlier versions must keep
 * replaying to the same states; an altered log must fail with a typed error.
 * Never regenerate these files: add new ones when events change.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { foldRun } from '../../actors/index.js';
import type { RunEvent } from '../../actors/index.js';
import { KowalskiError } from '../../core/index.js';
import { decodeEvent, openDatabase } from '../../engine/index.js';
import { EventLog } from '../../engine/store/event-log.js';
import { sqliteRunStore } from '../../engine/store/run-store.js';
import { tempDir } from '../../testkit/tmp.js';

interface Row { seq: number; type: string; v: number; at: number; data: Record<string, unknown> }

const dir = new URL('../golden/', import.meta.url);
function rows(name: string): Row[] {
  return fs.readFileSync(new URL(name, dir), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Row);
}
function decode(rs: Row[]): RunEvent[] {
  return rs.map((r) => decodeEvent('golden', r.seq, r.type, r.v, JSON.stringify(r.data)));
}
function replay(rs: Row[]) {
  const folded = foldRun('golden', decode(rs));
  if (!folded.ok) throw new KowalskiError('KW_ERR_REPLAY_DIVERGED', `event ${rs[folded.index]?.seq}: ${folded.reason}`);
  return folded.actor;
}
function statuses(a: ReturnType<typeof replay>): Record<string, string> {
  return Object.fromEntries(Object.entries(a.context.steps).map(([k, s]) => [k, `${s.status}#${s.attempts}`]));
}

describe('golden logs', () => {
  test('a fork/join run replays to succeeded', () => {
    const a = replay(rows('v1-fork-join-succeeded.jsonl'));
    assert.equal(a.state, 'succeeded');
    assert.deepEqual(statuses(a), { intake: 'passed#1', tests: 'passed#1', lint: 'passed#1', summary: 'passed#1' });
  });

  test('a verify loop that ran out replays to failed with the loop named', () => {
    const a = replay(rows('v1-loop-exhausted-failed.jsonl'));
    assert.equal(a.state, 'failed');
    assert.equal(a.context.error?.code, 'KW_ERR_LOOP_EXHAUSTED');
    assert.deepEqual(statuses(a), { dev: 'passed#2', check: 'failed#2' });
    assert.equal(a.context.steps.check!.approvedHash, 'c0ffee', 'one approval covered both loops');
  });

  test('a parked run replays to awaiting_input with the exact command shown', () => {
    const a = replay(rows('v1-parked-awaiting-approval.jsonl'));
    assert.equal(a.state, 'awaiting_input');
    assert.deepEqual(a.context.steps.check!.pending?.command.argv, ['/bin/sh', '-c', 'make test']);
  });

  test('an interrupted apply replays to outcome unknown, then cancelled', () => {
    const rs = rows('v1-apply-outcome-unknown.jsonl');
    const parked = replay(rs.slice(0, -1));
    assert.equal(parked.state, 'awaiting_input');
    assert.equal(parked.context.steps.apply!.pending?.reason, 'outcome_unknown');
    assert.equal(replay(rs).state, 'cancelled');
  });

  test('a 1.x straight line (implicit always edges) that went on past a failed verify replays to failed naming it', () => {
    const a = replay(rows('v1-line-ran-past-failure.jsonl'));
    assert.equal(a.state, 'failed');
    assert.equal(a.context.error?.code, 'KW_ERR_RAN_PAST_FAILURE');
    assert.match(a.context.error!.message, /^step "verify" \(exit 1\) failed; the run went on to the end/);
    assert.deepEqual(statuses(a), { build: 'passed#1', verify: 'failed#1', deliver: 'passed#1' });
  });

  test('written edges with two roots replay: both started first, each branch on its own', () => {
    const rs = rows('v1-written-roots-succeeded.jsonl');
    assert.deepEqual(rs.slice(1, 3).map((r) => `${r.type}:${String(r.data.step)}`), ['step.started:x', 'step.started:b']);
    const a = replay(rs);
    assert.equal(a.state, 'succeeded');
    assert.deepEqual(statuses(a), { x: 'passed#1', a: 'passed#1', b: 'passed#1', c: 'passed#1' });
  });

  test('golden logs replay the same through a real SQLite event log', (t) => {
    const db = openDatabase(path.join(tempDir(t), 'k.sqlite'));
    const insert = db.prepare('INSERT INTO events (run_id, seq, type, v, at, data) VALUES (?, ?, ?, ?, ?, ?)');
    const rs = rows('v1-loop-exhausted-failed.jsonl');
    for (const r of rs) insert.run('golden', r.seq, r.type, r.v, r.at, JSON.stringify(r.data));
    const stored = new EventLog(sqliteRunStore(db)).read('golden');
    db.close();
    assert.deepEqual(stored.map((s) => s.seq), rs.map((r) => r.seq));
    const folded = foldRun('golden', stored.map((s) => s.event));
    assert.ok(folded.ok && folded.actor.state === 'failed');
  });

  describe('altered logs fail with a typed error', () => {
    const base = rows('v1-loop-exhausted-failed.jsonl');
    const cases: [string, (rs: Row[]) => Row[], string][] = [
      ['an event removed', (rs) => rs.filter((r) => r.seq !== 6), 'KW_ERR_REPLAY_DIVERGED'],
      ['an attempt number changed', (rs) => rs.map((r) => (r.seq === 8 ? { ...r, data: { ...r.data, attempt: 5 } } : r)), 'KW_ERR_REPLAY_DIVERGED'],
      ['an approval for another hash', (rs) => rs.map((r) => (r.type === 'approval.granted' ? { ...r, data: { ...r.data, hash: 'forged' } } : r)), 'KW_ERR_REPLAY_DIVERGED'],
      ['an unknown event type', (rs) => [...rs.slice(0, 3), { ...rs[3]!, type: 'step.teleported' }, ...rs.slice(4)], 'KW_ERR_EVENT_UNKNOWN'],
      ['a version from the future', (rs) => rs.map((r) => (r.seq === 2 ? { ...r, v: 9 } : r)), 'KW_ERR_EVENT_UNKNOWN'],
      ['a payload missing a key', (rs) => rs.map((r) => (r.seq === 2 ? { ...r, data: { attempt: 1 } } : r)), 'KW_ERR_REPLAY_DIVERGED'],
      ['events after the end', (rs) => [...rs, { ...rs[rs.length - 1]!, seq: 99 }], 'KW_ERR_REPLAY_DIVERGED'],
    ];
    for (const [name, alter, code] of cases) {
      test(name, () => {
        assert.throws(() => replay(alter(base)), (err: KowalskiError) => err instanceof KowalskiError && err.code === code);
      });
    }
  });
});
