/**
 * Three-node soak on one Postgres store (a script, not a CI test; issue 18): three real
 * `kowalski serve` nodes, runs started over HTTP through all three in turn, one node
 * SIGKILLed at random moments and started again on its data folder each time; every 10th
 * run parks at a review and is approved through a node other than the one that parked it.
 * The invariants of testkit/crash/pg-nodes-check.ts are checked at the end (every
 * acknowledged run succeeded, each step's passed command ran exactly once per the ledger,
 * parked runs stayed parked until approved elsewhere, killed nodes' runs handed over with
 * reason expired). With chat (issue 40; `--chat-sessions=0` leaves it out), clients also chat
 * with the agent team through the nodes (delegation, the ledger MCP tool, vault notes) and
 * Slack sends them events; the invariants of testkit/crash/chat-support.ts and one Slack
 * post per event are checked too. CI runs the same at 90 runs and 4 kills (test/crash/pg-three-nodes.test.ts).
 *
 *   node --import tsx bench/soak-pg-nodes.ts [--runs=300] [--kills=10] [--gate-every=10] [--sleep=0.05] [--lease-secs=1] [--clients=3] [--max-delay-ms=1500] [--max-seconds=1800]
 *     [--chat-sessions=10] [--chat-turns=3] [--slack=20] [--pace-ms=20]
 *
 * Prints a line per kill on stderr, then the counts; exit status 1 when a problem was found.
 */
import { nodesUnderKills } from '../testkit/crash/pg-nodes-kills.js';
import { startPostgres } from '../testkit/postgres.js';
import { numberOption } from './args.js';

const cluster = await startPostgres();
const sessions = numberOption('chat-sessions', 10);
try {
  const { problems, ...counts } = await nodesUnderKills({
    url: cluster.url,
    runs: numberOption('runs', 300),
    kills: numberOption('kills', 10),
    gateEvery: numberOption('gate-every', 10),
    sleepS: numberOption('sleep', 0.05),
    leaseSecs: numberOption('lease-secs', 1),
    clients: numberOption('clients', 3),
    maxDelayMs: numberOption('max-delay-ms', 1500),
    limitMs: numberOption('max-seconds', 1800) * 1000,
    ...(sessions === 0 ? {} : { chat: { sessions, turns: numberOption('chat-turns', 3), slack: numberOption('slack', 20), paceMs: numberOption('pace-ms', 20) } }),
    onProgress: (line) => process.stderr.write(`${line}\n`),
  });
  process.stdout.write(`${JSON.stringify(counts)}\n`);
  for (const p of problems.slice(0, 50)) process.stdout.write(`PROBLEM ${p}\n`);
  process.exitCode = problems.length === 0 ? 0 : 1;
} finally {
  await cluster.stop();
}
