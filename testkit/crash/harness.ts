/**
 * The process the crash tests kill. `start <horde-dir> <n>` starts n runs and prints
 * `ACK <run-id>` for each once it is committed; `resume` continues what is unfinished.
 * Both print `DONE <run-id> <state>` as runs settle and `IDLE` when nothing is left.
 * `approve <run-id>` approves and continues one run. With KOWALSKI_DATABASE_URL its runs are
 * in that Postgres database.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_CONFIG, createEngine } from '../../engine/index.js';
import { CHILD_LEASE_SECS, leasesLapsed } from '../pg-store.js';

const [, , dataDir, mode, ...args] = process.argv;
const here = path.dirname(fileURLToPath(import.meta.url));
const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
// A run's form answers and the addresses a web fetch may reach (test servers on 127.0.0.1), when a test gives them.
const input = JSON.parse(process.env.KOWALSKI_TEST_INPUT ?? '{}') as Record<string, string>;
const fetchAllow = process.env.KOWALSKI_TEST_FETCH_ALLOW?.split(',');
// On Postgres (the test gave KOWALSKI_DATABASE_URL): short leases, and no adoption, so that `resume` takes the killed
// process's runs back in recover() (once their leases have lapsed), as a restart on SQLite does, and reports them.
const postgres = process.env.KOWALSKI_DATABASE_URL;
const engine = await createEngine({
  dataDir: dataDir!,
  ...(postgres === undefined ? {} : { adoptRuns: false, config: { ...DEFAULT_CONFIG, store: { ...DEFAULT_CONFIG.store, leaseSecs: CHILD_LEASE_SECS } } }),
  ...(fetchAllow === undefined ? {} : { testOnlyFetchAllow: fetchAllow }),
  extraStepKinds: [
    { kind: 'ledger', module: path.join(here, `ledger-kind${ext}`), usesModel: false, idempotent: true, runsCommand: false },
    { kind: 'ledger_unsafe', module: path.join(here, `ledger-kind${ext}`), usesModel: false, idempotent: false, runsCommand: false },
  ],
});
const say = (line: string): void => void process.stdout.write(`${line}\n`);
engine.on('engine:warning', ({ message }) => process.stderr.write(`warning: ${message}\n`));

const waits: Promise<void>[] = [];
const follow = (runId: string): void => {
  waits.push(engine.waitForRun(runId).then((state) => say(`DONE ${runId} ${state}`)));
};

if (mode === 'start') {
  const { horde } = await engine.resolveHorde(args[0]!);
  const n = Number(args[1] ?? '1');
  const started = await Promise.all(Array.from({ length: n }, () => engine.startRun(horde, input, { provenance: 'crash-test' }).then((id) => {
    say(`ACK ${id}`);
    return id;
  })));
  started.forEach(follow);
} else if (mode === 'resume') {
  if (postgres !== undefined) await leasesLapsed(postgres);
  const summary = await engine.recover();
  say(`RECOVERED ${JSON.stringify(summary)}`);
  summary.resumed.forEach(follow);
} else if (mode === 'approve') {
  await engine.approve(args[0]!);
  follow(args[0]!);
}
await Promise.all(waits);
say('IDLE');
await engine.close();
