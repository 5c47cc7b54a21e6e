/**
 * Durability: SIGKILL at every named crash point and at random while runs are in
 * flight, restart, and check the invariants against a ledger the steps write outside
 * the engine.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, test } from 'node:test';
import { acks, checkInvariants, harness, readLedger, writeLedgerHorde } from './support.js';
import { tempDir } from '../support/tmp.js';

const POINTS: [string, number][] = [
  ['before-commit', 1], ['before-commit', 4], ['after-commit', 1], ['after-commit', 6],
  ['after-dispatch', 1], ['after-dispatch', 5], ['before-result-commit', 1], ['before-result-commit', 7],
];

describe('named crash points', () => {
  for (const [point, k] of POINTS) {
    test(`kill -9 at ${point} (hit ${k}), restart: nothing acknowledged is lost, no finished step runs again`, async (t) => {
      const dir = tempDir(t);
      const home = path.join(dir, 'home');
      const ledgerFile = path.join(dir, 'ledger');
      const horde = writeLedgerHorde(dir);
      const env = { KW_LEDGER: ledgerFile };
      const first = await harness(home, ['start', horde, '4'], { env: { ...env, KOWALSKI_CRASH_AT: `${point}:${k}` } });
      assert.equal(first.signal, 'SIGKILL', `the crash point was reached (exit ${first.code}, ${first.stderr})`);
      const acked = acks(first);
      const second = await harness(home, ['resume'], { env });
      assert.equal(second.code, 0, second.stderr);
      assert.ok(second.lines.includes('IDLE'));
      const { runs } = checkInvariants(home, acked, readLedger(ledgerFile));
      assert.ok(runs >= acked.length);
    });
  }
});

test('random kill -9 while 50 runs are in flight, five times over, then a clean restart', async (t) => {
  const dir = tempDir(t);
  const home = path.join(dir, 'home');
  const ledgerFile = path.join(dir, 'ledger');
  const horde = writeLedgerHorde(dir);
  const env = { KW_LEDGER: ledgerFile, KW_LEDGER_DELAY_MS: '40' };
  const acked = new Set<string>();
  let kills = 0;
  const first = await harness(home, ['start', horde, '50'], { env, killAfterMs: 700 + Math.floor(Math.random() * 500) });
  for (const id of acks(first)) acked.add(id);
  if (first.signal === 'SIGKILL') kills++;
  for (let i = 0; i < 5; i++) {
    const r = await harness(home, ['resume'], { env, killAfterMs: 500 + Math.floor(Math.random() * 700) });
    if (r.signal === 'SIGKILL') kills++;
  }
  const last = await harness(home, ['resume'], { env, limitMs: 120_000 });
  assert.equal(last.code, 0, last.stderr);
  assert.ok(kills >= 1, 'at least one kill landed mid-flight');
  const { runs, reruns } = checkInvariants(home, acked, readLedger(ledgerFile));
  assert.ok(runs >= acked.size);
  t.diagnostic(`${kills} kills, ${acked.size} acknowledged, ${runs} runs, ${reruns} interrupted attempts re-run`);
});
