/**
 * Durability of chat sessions: SIGKILL at the chat crash points (and while a sub-agent's
 * answer streams), restart, and check the turn against the ledgers kept outside the
 * engine: the fake model server's (every call asked and which answer was recorded) and
 * the ledger MCP tool's file (a tool not safe to repeat). See chat-support.ts for the
 * invariants. Each budget is just enough for the turn: a restart must not count a call twice.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { TestContext } from 'node:test';
import { test } from 'node:test';
import { createEngine } from '../../engine/index.js';
import { writeTeam } from '../../testkit/chat.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeModelServer } from '../../testkit/fake-models.js';
import { tempDir } from '../../testkit/tmp.js';
import { CALLS_PER_TURN, ModelLedger, team, teamAnswer } from '../../testkit/crash/chat-ledger.js';
import type { Asked } from '../../testkit/crash/chat-ledger.js';
import { budgetDrops, budgetsNow, chatLife, checkChat, writeChatHome } from '../../testkit/crash/chat-support.js';
import type { ChatHome, Chatting } from '../../testkit/crash/chat-support.js';
import type { HarnessOptions } from '../../testkit/crash/support.js';
import { cleanups } from '../../testkit/cleanup.js';
import { testOwnCode } from '../../testkit/dist.js';

interface Setup { ledger: ModelLedger; server: FakeModelServer; h: ChatHome }

async function setup(t: TestContext, topic: string, pace?: (asked: Asked, seen: number) => number): Promise<Setup> {
  const ledger = new ModelLedger(pace);
  const server = await startFakeOllama(ledger.script);
  cleanups(t)(() => server.close());
  return { ledger, server, h: writeChatHome(tempDir(t, 'kw-crash-chat-'), server.url, team(CALLS_PER_TURN[topic]!)) };
}

const one = (topic: string): Chatting => ({ agent: 'boss', sessions: 1, turns: 1, topic });
const linesOf = (file: string): string[] => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8').split('\n').filter((l) => l !== '') : []);

/** The first life, killed; then the restart, which must end cleanly. Returns the check, both lives, and the budgets between them. */
async function killThenRestart(s: Setup, what: Chatting, answer: (m: string) => string, kill: HarnessOptions) {
  const first = await chatLife(s.h.home, s.ledger, what, kill);
  assert.equal(first.signal, 'SIGKILL', `killed where asked (exit ${first.code}): ${first.stderr}\n${first.lines.join('\n')}`);
  const before = budgetsNow(s.h.home);
  const second = await chatLife(s.h.home, s.ledger, what);
  assert.equal(second.code, 0, `${second.stderr}\n${second.lines.join('\n')}`);
  assert.deepEqual(budgetDrops(before, budgetsNow(s.h.home)), []);
  const check = await checkChat(s.h.home, s.ledger, [s.server], s.h.ledgerFile, [what], answer);
  assert.deepEqual(check.problems, []);
  // These kills land where no answer is on its way: no call the fake answered to the end is asked again.
  assert.equal(check.answersLostToKills, 0);
  return { check, first, second, before };
}

test('kill -9 right after the message is committed: after the restart the turn runs, each model call made once', async (t) => {
  const s = await setup(t, 'team');
  const { check, first, second } = await killThenRestart(s, one('team'), teamAnswer, { env: { KOWALSKI_CRASH_AT: 'chat-after-message:1' } });
  const id = first.lines.find((l) => l.startsWith('SESSION '))!.slice(8);
  assert.ok(!first.lines.some((l) => l.startsWith('ACK ')), 'killed before send returned');
  assert.ok(second.lines.includes(`RECOVERED ${JSON.stringify([id])}`), 'the committed turn is recovered');
  assert.deepEqual([check.calls, check.askedAgain, s.ledger.asked.length], [6, 0, 6]);
});

test('kill -9 inside a sub-agent\'s model call: the interrupted call is made again, finished ones are not, the budget is not refilled', async (t) => {
  const s = await setup(t, 'team');
  const { check, first, before } = await killThenRestart(s, one('team'), teamAnswer, { env: { KOWALSKI_CRASH_AT: 'chat-in-subagent-call:1' } });
  assert.deepEqual([...before.values()].map((b) => b.used), [2], 'the interrupted call was counted when it started');
  // The log at the kill: boss's first call answered, a sub-agent's call started and not answered.
  const events = first.lines.filter((l) => l.startsWith('EVENT '));
  const open = events.filter((l) => / model\.started r\/1\.\d /.test(l));
  assert.equal(open.length, 1, events.join('\n'));
  const node = open[0]!.split(' ')[4]!;
  assert.ok(!events.some((l) => l.includes(` model.finished ${node} `)));
  assert.deepEqual(s.ledger.asked.filter((a) => a.life === 1).map((a) => a.agent), ['boss'], 'the interrupted call had not reached the model');
  // After the restart it was made (once), by the agent of that node, and the turn finished on a budget of exactly its calls.
  const agent = node === 'r/1.0' ? 'alpha' : 'beta';
  assert.ok(s.ledger.asked.some((a) => a.life === 2 && a.agent === agent && a.body.messages.length === 2));
  assert.deepEqual([check.calls, s.ledger.asked.length], [6, 6]);
  assert.deepEqual(linesOf(s.h.ledgerFile), ['note B for team 0 turn 1']);
});

test('kill -9 while a sub-agent\'s answer streams and the other sub-agent has finished: only the interrupted call is asked again', async (t) => {
  // alpha's first call streams slowly the first time it is asked; it is cut by the kill.
  let alphaAsked!: () => void;
  const asked = new Promise<void>((resolve) => (alphaAsked = resolve));
  const s = await setup(t, 'team', (a, seen) => {
    if (a.agent !== 'alpha' || seen > 0 || a.body.messages.length !== 2) return 0;
    alphaAsked();
    return 60_000;
  });
  let betaDone!: () => void;
  const done = new Promise<void>((resolve) => (betaDone = resolve));
  const { check } = await killThenRestart(s, one('team'), teamAnswer, {
    killOn: Promise.all([asked, done]),
    killWhen: (line) => {
      if (/ delegation\.finished r\/1\.1 /.test(line)) betaDone();
      return false;
    },
  });
  const alpha = s.ledger.asked.filter((a) => a.agent === 'alpha' && a.body.messages.length === 2);
  assert.deepEqual(alpha.map((a) => [a.life, s.server.requests.find((r) => r.body === a.body)!.answered]), [[1, false], [2, true]]);
  assert.equal(s.ledger.asked.filter((a) => a.agent === 'beta').length, 2, 'beta\'s calls were not made again');
  assert.deepEqual([check.calls, check.askedAgain], [6, 1]);
  assert.deepEqual(linesOf(s.h.ledgerFile), ['note B for team 0 turn 1'], 'beta\'s tool ran once');
});

const unsure = (m: string): string => `Unsure whether "${m}" was written.`;

for (const [point, written] of [['chat-after-tool-intent', 0], ['chat-before-tool-result', 1]] as const) {
  test(`kill -9 at ${point} of a tool not safe to repeat (MCP): it is not run again, the model is told its outcome is unknown`, async (t) => {
    const s = await setup(t, 'write');
    const { check } = await killThenRestart(s, one('write'), unsure, { env: { KOWALSKI_CRASH_AT: `${point}:1` } });
    assert.equal(linesOf(s.h.ledgerFile).length, written, 'the tool took effect at most once');
    const last = s.ledger.asked.at(-1)!.body.messages.at(-1);
    assert.equal(last.role, 'tool');
    assert.match(last.content, /KW_ERR_TOOL_OUTCOME_UNKNOWN.*ledger\.append was interrupted/);
    assert.deepEqual([check.calls, check.outcomeUnknown, s.ledger.asked.length], [2, 1, 2]);
  });

  test(`kill -9 at ${point} of an idempotent tool (read_file): it is run again and the model reads its result`, async (t) => {
    const s = await setup(t, 'read');
    const { check } = await killThenRestart(s, one('read'), () => 'The file says 42', { env: { KOWALSKI_CRASH_AT: `${point}:1` } });
    const last = s.ledger.asked.at(-1)!.body.messages.at(-1);
    assert.deepEqual([last.role, last.content], ['tool', '42']);
    assert.deepEqual([check.calls, s.ledger.asked.length], [2, 2]);
  });
}

test('a budget one call short stays short across a kill: the turn stops budget_exhausted, and granting one more finishes the same turn', async (t) => {
  const s = await setup(t, 'team');
  writeTeam(s.h.home, team(CALLS_PER_TURN.team! - 1));
  const what = one('team');
  const first = await chatLife(s.h.home, s.ledger, what, { env: { KOWALSKI_CRASH_AT: 'chat-in-subagent-call:1' } });
  assert.equal(first.signal, 'SIGKILL');
  const second = await chatLife(s.h.home, s.ledger, what);
  const id = first.lines.find((l) => l.startsWith('SESSION '))!.slice(8);
  assert.ok(second.lines.includes(`DONE ${id} 1 budget_exhausted KW_ERR_BUDGET_EXHAUSTED`), second.lines.filter((l) => !l.startsWith('EVENT')).join('\n'));
  assert.equal(s.ledger.asked.length, 5, 'the restart did not get a fresh budget');
  assert.deepEqual([...budgetsNow(s.h.home).values()], [{ turn: 1, used: 5 }]);
  // The operator grants one more call (the parent's own engine, as the API would): the same turn finishes from its log.
  s.ledger.life += 1;
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: s.h.home });
  const out = await engine.chat.grant(id, 1).done.finally(() => engine.close());
  assert.deepEqual([out.turn, out.stop, out.text], [1, 'done', teamAnswer('team 0 turn 1')]);
  const check = await checkChat(s.h.home, s.ledger, [s.server], s.h.ledgerFile, [what], teamAnswer);
  assert.deepEqual(check.problems, []);
  assert.deepEqual([check.calls, s.ledger.asked.length, check.answersLostToKills], [6, 6, 0]);
});
