/**
 * A node of a Postgres store in its own process, for the tests that kill or stop one:
 * an engine on URL (data folder HOME, run folders under FILES, leases of LEASE_SECS; the
 * rest of its config from HOME's config.toml when it has one, e.g. a model),
 * which recovers, starts one run of the horde folder HORDE, and prints one JSON line per
 * fact: `{"node": id}`, `{"run": id}`, and `{"stopped": code, "why": message}` when the engine stops
 * (then it exits 3). It runs until it is killed.
 * Usage: node $(nodeArgsFor('testkit/pg-node.ts')) URL HOME FILES LEASE_SECS HORDE (built when dist/ is current).
 */
import path from 'node:path';
import { createEngine, loadConfig } from '../engine/index.js';
import { TEST_KINDS } from './kinds/index.js';
import { testOwnCode } from './dist.js';

const [url, home, files, leaseSecs, hordeDir] = process.argv.slice(2) as [string, string, string, string, string];
const say = (fact: Record<string, unknown>): void => void process.stdout.write(`${JSON.stringify(fact)}\n`);
const base = loadConfig(path.join(home, 'config.toml'));
const engine = await createEngine({ ownCode: testOwnCode(),
  dataDir: home,
  config: { ...base, store: { ...base.store, url, files, leaseSecs: Number(leaseSecs) } },
  extraStepKinds: TEST_KINDS,
});
engine.on('engine:stopped', ({ error }) => {
  say({ stopped: error.code, why: error.message });
  process.exit(3);
});
say({ node: engine.nodes().nodes.find((n) => n.self)!.id });
await engine.recover();
const { horde } = await engine.resolveHorde(hordeDir);
say({ run: await engine.startRun(horde, {}) });
setInterval(() => undefined, 60_000);
