/**
 * Durability of plugin adapters: the example plugin's `relay` adapter behind a real server
 * process (testkit/crash/adapter-child.ts), SIGKILLed at the named crash points of the
 * inbound path and at random, started again, the same messages delivered again (a sender
 * retries). The ledgers are outside the server: the fake model's requests and the fake
 * relay's received replies (test/support/plugin-relay-crash.ts). Each message is recorded
 * once, no model call whose answer was recorded is asked again, and each reply is sent
 * once — or, killed after the plugin's send and before it was recorded, once more after
 * the restart (docs/adapters.md: a reply is at least once, never lost).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkRelay, relayWorld } from '../support/plugin-relay-crash.js';
import type { Delivered, Life, RelayMessage, RelayWorld } from '../support/plugin-relay-crash.js';

const status = (d: Delivered): number | 'cut' => (d === 'cut' ? 'cut' : d.status);

/**
 * Per point: what the first delivery may be answered (`cut`: the server died before it
 * answered), then the model's requests and the relay's replies when the server died. The turn
 * runs beside the request, so a kill as its model call starts may come before the 200 is written.
 */
const POINTS = [
  { point: 'adapter-after-accept', answers: ['cut'], asked: 0, sent: 0 }, // recorded, the 200 not yet answered
  { point: 'chat-in-model-call', answers: [200, 'cut'], asked: 0, sent: 0 }, // the turn's model call started, not yet asked
  { point: 'adapter-before-reply', answers: [200], asked: 1, sent: 0 }, // the model answered and it is recorded, the reply not sent
  { point: 'adapter-after-reply', answers: [200], asked: 1, sent: 1 }, // the plugin sent the reply, not yet recorded
] as const;

for (const { point, answers, asked, sent } of POINTS) {
  test(`SIGKILL at ${point}: after the restart and the sender's retry, the message is recorded once, the model asked once, the reply sent ${sent === 1 ? 'again (at least once)' : 'once'}`, async (t) => {
    const world = await relayWorld(t);
    const m: RelayMessage = { id: 'm-1', text: 'survive this', conversation: 'ops' };
    const first = await world.start(`${point}:1`);
    const delivered = await world.deliver(first, m);
    const died = await world.ended(first);
    assert.equal(died.signal, 'SIGKILL', `the crash point was reached:\n${died.stderr}`);
    assert.ok((answers as readonly (number | 'cut')[]).includes(status(delivered)), JSON.stringify(delivered));
    assert.equal(world.model.requests.length, asked, 'the model asked before the kill');
    assert.equal(world.replies.length, sent, 'replies sent before the kill');

    const second = await world.start();
    const retried = await world.deliver(second, m);
    assert.equal(status(retried), 200, JSON.stringify(retried));
    assert.deepEqual((retried as { json: { duplicates: boolean[] } }).json.duplicates, [true], 'the retry is the same record');
    await second.cli.stderrLine(/^RECORD m-1 replied$/);
    second.cli.child.kill('SIGTERM');
    assert.equal((await world.ended(second)).code, 0);

    const check = await checkRelay(world, [m]);
    assert.deepEqual(check.problems, []);
    assert.equal(world.model.requests.length, 1, 'the model asked once in all');
    assert.equal(world.replies.length, sent + 1, sent === 1 ? 'sent again after the restart: its send was not recorded' : 'sent once');
  });
}

/**
 * A life with every message delivered to it, killed `killAfterMs` after its first delivery was
 * answered (its plugin's process is up then: a start-up of any length is not counted), or not
 * killed when undefined.
 */
async function live(world: RelayWorld, messages: RelayMessage[], killAfterMs?: number): Promise<Life> {
  const life = await world.start();
  let timer: NodeJS.Timeout | undefined;
  const answered = (): void => {
    if (killAfterMs !== undefined && timer === undefined) timer = setTimeout(() => life.cli.child.kill('SIGKILL'), killAfterMs);
  };
  void world.ended(life).then(() => clearTimeout(timer));
  // Each conversation's messages in order, the conversations at once; a cut one is delivered again in the next life.
  const conversations = [...new Set(messages.map((m) => m.conversation))];
  await Promise.all(conversations.map(async (c) => {
    for (const m of messages.filter((x) => x.conversation === c)) {
      const d = await world.deliver(life, m);
      answered();
      if (d !== 'cut' && d.status !== 200) throw new Error(`${m.id}: answered ${d.status} ${JSON.stringify(d.json)}`);
    }
  }));
  return life;
}

test('SIGKILL at random moments while messages arrive, are answered and replied: each recorded once, no recorded model call asked again, each reply at least once and again only after a kill', async (t) => {
  const KILLS = 8;
  const world = await relayWorld(t, 40);
  // Two conversations; each life brings one new message to each, and the sender delivers every earlier one again.
  const messages: RelayMessage[] = Array.from({ length: KILLS + 1 }, (_, i) => ['a', 'b'].map((c) => ({ id: `${c}-${i}`, text: `note ${i} of ${c}`, conversation: c }))).flat();
  const upTo = (life: number): RelayMessage[] => messages.filter((m) => Number(m.id.split('-')[1]) < life);
  let killed = 0;
  for (let i = 1; i <= KILLS; i++) {
    const delay = Math.floor(Math.random() * 2000);
    const life = await live(world, upTo(i), delay);
    const end = await world.ended(life);
    if (end.signal === 'SIGKILL') killed += 1;
    else assert.fail(`life ${life.n} ended before its kill: ${end.code}\n${end.stderr}`);
    t.diagnostic(`life ${life.n} killed ${delay} ms after its first answer: ${world.asked.length} model requests, ${world.replies.length} replies so far`);
  }
  const last = await live(world, messages);
  for (const m of messages) await last.cli.stderrLine(new RegExp(`^RECORD ${m.id} replied$`));
  last.cli.child.kill('SIGTERM');
  assert.equal((await world.ended(last)).code, 0);

  const check = await checkRelay(world, messages);
  t.diagnostic(`${killed} kills; ${world.asked.length} model requests for ${check.recordedCalls} calls (${check.askedAgain} asked again after a kill); ${world.replies.length} replies for ${messages.length} messages (${check.sentAgain} sent again after a kill)`);
  assert.deepEqual(check.problems, []);
  assert.equal(killed, KILLS);
});
