/**
 * Durability of chat sessions under random kills: 10 sessions chat at once (each turn a
 * coordinator delegating to two sub-agents at once, one reading a file, the other calling
 * a tool not safe to repeat), the engine SIGKILLed at random moments three times in a row,
 * restarted each time, then once more to finish. Longer: `node --import tsx bench/soak-chat.ts --kills=50`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chatUnderKills } from '../../testkit/crash/chat-kills.js';

test('random kill -9 while 10 sessions chat, three times over, then a clean restart: every turn done, no recorded answer asked again, traces = calls ended, budgets kept', async (t) => {
  const r = await chatUnderKills({ sessions: 10, turns: 2, kills: 3, maxDelayMs: 800, paceMs: 10 });
  t.diagnostic(`${r.kills} kills in ${r.lives} lives; ${r.turns} turns, ${r.calls} model calls, ${r.requests} requests to the model; ${r.askedAgain} asked again after a kill (${r.answersLostToKills} of them answered before the kill, not yet recorded); ${r.outcomeUnknown} tool outcomes unknown`);
  assert.deepEqual(r.problems, []);
  assert.ok(r.kills >= 1, 'at least one kill landed mid-flight');
  assert.equal(r.turns, 20);
  assert.equal(r.calls, 20 * 6, 'each turn made its 6 model calls, each counted once');
});
