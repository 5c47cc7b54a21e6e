/**
 * Issue 18's proof, at CI's size: three `kowalski serve` nodes on one Postgres store, runs
 * started through all three, one node SIGKILLed at random moments and started again:
 * every acknowledged run succeeds, every finished step ran exactly once (a ledger outside
 * the engine), every parked run stays parked until approved through another node than
 * the one that parked it, and a killed node's runs pass to another node once its lease
 * expires. Full size (300 runs, 10 kills): `node --import tsx bench/soak-pg-nodes.ts`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freshPostgresUrl } from '../support/pg-engine.js';
import { nodesUnderKills } from '../../testkit/crash/pg-nodes-kills.js';

test('three nodes on one Postgres, 90 runs through all three, one node SIGKILLed 4 times: every run succeeds, each step ran once, parked runs wait for an approval through another node', async (t) => {
  const r = await nodesUnderKills({ url: await freshPostgresUrl(), runs: 90, kills: 4, limitMs: 240_000, onProgress: (line) => t.diagnostic(line) });
  const { problems, ...counts } = r;
  t.diagnostic(JSON.stringify(counts));
  assert.deepEqual(problems, []);
  assert.equal(r.kills, 4);
  assert.equal(r.acked, 90, 'every run was acknowledged by one node or another');
  assert.equal(r.runs, r.acked + r.unacknowledged);
  assert.ok(r.parked >= 9, `every 10th run parked (${r.parked})`);
  assert.ok(r.orphans > 0, 'a kill landed on a node executing runs');
  assert.ok(r.handovers.expired >= r.orphans, 'each run of a killed node passed on with reason expired');
});
