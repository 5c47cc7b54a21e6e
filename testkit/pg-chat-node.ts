/**
 * A node of a Postgres store in its own process that begins one chat turn, for the tests
 * that kill a node mid-turn: an engine on URL (data folder HOME, its team and model from
 * HOME's config.toml, leases of LEASE_SECS), which creates a session with AGENT, sends
 * MESSAGE and prints one JSON line per fact: `{"node": id}`, `{"session": id}` once the
 * turn is committed, `{"answer": text}` when it ends, and `{"stopped": code}` when the
 * engine stops (then it exits 3). It runs until it is killed.
 * Usage: node $(nodeArgsFor('testkit/pg-chat-node.ts')) URL HOME LEASE_SECS AGENT MESSAGE (built when dist/ is current).
 */
import path from 'node:path';
import { createEngine, loadConfig } from '../engine/index.js';
import { testOwnCode } from './dist.js';

const [url, home, leaseSecs, agent, message] = process.argv.slice(2) as [string, string, string, string, string];
const say = (fact: Record<string, unknown>): void => void process.stdout.write(`${JSON.stringify(fact)}\n`);
const base = loadConfig(path.join(home, 'config.toml'));
const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home, config: { ...base, store: { ...base.store, url, leaseSecs: Number(leaseSecs) } } });
engine.on('engine:stopped', ({ error }) => {
  say({ stopped: error.code });
  process.exit(3);
});
say({ node: engine.nodes().nodes.find((n) => n.self)!.id });
const session = engine.chat.create({ agent });
const sent = engine.chat.send(session.id, message);
say({ session: session.id });
say({ answer: (await sent.done.catch((err: unknown) => ({ text: `failed: ${String(err)}` }))).text });
setInterval(() => undefined, 60_000);
