/**
 * The process the chat crash tests kill: `<data-dir> <agent> <sessions> <turns> <topic>`.
 * It recovers the turns under way (`RECOVERED <ids as JSON>`), makes sure `sessions`
 * sessions with `agent` exist (titled `<topic> <i>`; `SESSION <id>` for each new one), and
 * has each chat until it has `turns` turns: message k of session i is `<topic> <i> turn k`,
 * `ACK <id> <turn>` once it is committed, `DONE <id> <turn> <stop>` when its turn ends.
 * Every committed event is printed as `EVENT <id> <seq> <type> <node> <seq of the call>`,
 * so a test can kill at a moment of the log. `IDLE` when everything is said.
 */
import { createEngine } from '../../engine/index.js';
import type { TurnOutcome } from '../../engine/index.js';

const [, , dataDir, agent, sessionsArg, turnsArg, topic] = process.argv;
const sessions = Number(sessionsArg);
const turns = Number(turnsArg);
const say = (line: string): void => void process.stdout.write(`${line}\n`);

const engine = await createEngine({ dataDir: dataDir! });
engine.on('engine:warning', ({ message }) => process.stderr.write(`warning: ${message}\n`));
engine.on('chat:event', ({ stored }) => {
  const e = stored.event as { type: string; node?: string; seq?: number };
  say(`EVENT ${stored.sessionId} ${stored.seq} ${e.type} ${e.node ?? '-'} ${e.seq ?? '-'}`);
});

const summary = await engine.recover();
say(`RECOVERED ${JSON.stringify(summary.chats ?? [])}`);

const mine = engine.chat.list(1000).filter((s) => s.agent === agent && s.title.startsWith(`${topic} `));
for (let i = mine.length; i < sessions; i++) {
  const created = engine.chat.create({ agent: agent!, title: `${topic} ${i}`, by: 'crash-test' });
  say(`SESSION ${created.id}`);
  mine.push(created);
}

const report = (id: string, out: TurnOutcome): void => say(`DONE ${id} ${out.turn} ${out.stop}${out.error === undefined ? '' : ` ${out.error.code}`}`);

async function chat(id: string): Promise<void> {
  const under = engine.chat.turnUnderWay(id);
  if (under !== undefined) report(id, await under);
  for (;;) {
    const s = engine.chat.summary(id);
    if (s.state !== 'idle') return say(`STUCK ${id} ${s.state}`);
    if (s.turns >= turns) return;
    const sent = engine.chat.send(id, `${s.title} turn ${s.turns + 1}`, { by: 'crash-test' });
    say(`ACK ${id} ${sent.turn}`);
    report(id, await sent.done);
  }
}

await Promise.all(mine.map((s) => chat(s.id)));
say('IDLE');
await engine.close();
