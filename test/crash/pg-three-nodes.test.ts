/**
 * Issues 18 and 40's proof, at CI's size: three `kowalski serve` nodes on one Postgres
 * store, runs started through all three, chat sessions with the agent team (delegation, a
 * tool not safe to repeat, vault notes) and Slack events sent through them, one node
 * SIGKILLed at random moments and started again. Runs: every acknowledged run succeeds,
 * every finished step ran exactly once (a ledger outside the engine), every parked run
 * stays parked until approved through another node than the one that parked it, and a
 * killed node's runs pass to another node once its lease expires. Chat: every turn ends
 * with its answer, whichever node finished it; no answered model call is asked again (the
 * fake model's ledger, outside the engine); each delegated call's trace has its parent;
 * each vault note is written once; each Slack event is answered by one post (one more only
 * when a node was killed between a post and its record: a reply is at least once). Full size:
 * `node --import tsx bench/soak-pg-nodes.ts` (300 runs, 10 kills, 30 sessions, 20 events).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freshPostgresUrl } from '../support/pg-engine.js';
import { nodesUnderKills } from '../../testkit/crash/pg-nodes-kills.js';

test('three nodes on one Postgres, 90 runs, 6 chat sessions and 4 Slack events through all three, one node SIGKILLed 4 times: every run succeeds, each step ran once, parked runs wait for an approval through another node; every turn ends with its answer, no answered model call asked again, each note and reply made once', async (t) => {
  const r = await nodesUnderKills({
    url: await freshPostgresUrl(), runs: 90, kills: 4, limitMs: 300_000,
    chat: { sessions: 3, turns: 2, slack: 4, paceMs: 40 },
    onProgress: (line) => t.diagnostic(line),
  });
  const { problems, ...counts } = r;
  t.diagnostic(JSON.stringify(counts));
  assert.deepEqual(problems, []);
  assert.equal(r.kills, 4);
  assert.equal(r.acked, 90, 'every run was acknowledged by one node or another');
  assert.equal(r.runs, r.acked + r.unacknowledged);
  assert.ok(r.parked >= 9, `every 10th run parked (${r.parked})`);
  assert.ok(r.orphans > 0, 'a kill landed on a node executing runs');
  assert.ok(r.handovers.expired >= r.orphans, 'each run of a killed node passed on with reason expired');
  const chat = r.chat!;
  assert.deepEqual([chat.sessions, chat.turns], [3 + 3 + 4, 3 * 2 + 3 * 2 + 4], 'every session with all its turns (a Slack event is a session of one turn)');
  assert.equal(chat.notes, 3 * 2 + 4, 'a vault note per vault turn');
  assert.equal(chat.slack.posts, 4 + chat.slack.duplicates, 'each event answered, again only after a kill (checked post by post)');
  assert.ok(chat.slack.duplicates <= r.kills, `${chat.slack.duplicates} posts again, for ${r.kills} kills`);
  assert.ok(chat.turnsCut > 0, 'a kill landed on a node running a chat turn');
});
