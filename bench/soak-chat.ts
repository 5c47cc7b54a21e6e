/**
 * Chat kill soak (a script, not a CI test): sessions chat (each turn a coordinator that
 * delegates to two sub-agents at once, one reading a file, the other calling an MCP tool
 * not safe to repeat) while their engine is SIGKILLed at random moments, life after life,
 * then a clean life finishes; the invariants of testkit/crash/chat-support.ts are checked
 * against the fake model server's ledger, the tool's ledger file and the database.
 *
 *   node --import tsx bench/soak-chat.ts [--kills=50] [--sessions=10] [--turns=<kills>] [--max-delay-ms=1500] [--pace-ms=10]
 *
 * Each session has `--turns` turns to say (default: as many as kills, so every life has work
 * left). Prints a line per life on stderr, then the counts; exit status 1 when a problem was found.
 */
import { chatUnderKills } from '../testkit/crash/chat-kills.js';
import { numberOption } from './args.js';

const result = await chatUnderKills({
  kills: numberOption('kills', 50),
  sessions: numberOption('sessions', 10),
  turns: numberOption('turns', numberOption('kills', 50)),
  maxDelayMs: numberOption('max-delay-ms', 1500),
  paceMs: numberOption('pace-ms', 10),
  onLife: ({ n, killed, ms }) => process.stderr.write(`life ${n}: ${killed ? 'killed' : 'ended'} after ${ms} ms\n`),
});
const { problems, ...counts } = result;
process.stdout.write(`${JSON.stringify(counts)}\n`);
for (const p of problems) process.stdout.write(`PROBLEM ${p}\n`);
process.exitCode = problems.length === 0 ? 0 : 1;
