// DBOS Transact in the peers' shape, on a Postgres it is given (issues 18 and 35): a
// workflow of 6 no-op steps, one at a time and in Promise.all batches; then runs that wait
// at step 3 for a message (DBOS.recv), parked by one process and, in a new process that
// recovers them, sent their message. Not part of kowalski: bench/peers/install.sh installs
// it (or copy this folder with common.mjs and `npm install` there; KOWALSKI_BENCH_DBOS).
// node w1.mjs --url=postgres://…/db --dir=<scratch> [--runs=500] [--batch=50] [--park=200]. Prints one JSON line.
import crypto from 'node:crypto';
import { DBOS } from '@dbos-inc/dbos-sdk';
import { STEPS, args, parkPhase, phase, print, resumePhase, versionOf, w1Shapes } from './common.mjs';

const o = args();
if (o.url === undefined) throw new Error('--url=postgres://… is required');

const noop = DBOS.registerStep(async () => undefined, { name: 'noop' });
const w1 = DBOS.registerWorkflow(async () => {
  for (let i = 0; i < STEPS; i += 1) await noop();
  return 'ok';
}, { name: 'w1' });
const park = DBOS.registerWorkflow(async () => {
  await noop();
  await noop();
  await DBOS.setEvent('parked', true);
  await DBOS.recv('go', 3600);
  for (let i = 3; i < STEPS; i += 1) await noop();
  return 'ok';
}, { name: 'park' });

DBOS.setConfig({ name: 'kowalski-bench-w1', systemDatabaseUrl: o.url, logLevel: 'error' });
await DBOS.launch();
try {
  if (o.phase === 'park') {
    print(await parkPhase(async (n) => {
      const ids = Array.from({ length: n }, () => crypto.randomUUID());
      await Promise.all(ids.map((id) => DBOS.startWorkflow(park, { workflowID: id })()));
      const parked = await Promise.all(ids.map((id) => DBOS.getEvent(id, 'parked', 60)));
      return ids.filter((_id, i) => parked[i] === true);
    }, o));
  } else if (o.phase === 'resume') {
    // Launched above: DBOS recovered the parked workflows, which wait in recv again.
    print(await resumePhase((ids) => Promise.all(ids.map(async (id) => {
      await DBOS.send(id, 'go', 'go');
      return (await DBOS.retrieveWorkflow(id).getResult()) === 'ok';
    })), o));
  } else {
    const shapes = await w1Shapes(async () => (await (await DBOS.startWorkflow(w1)()).getResult()) === 'ok', o);
    await DBOS.shutdown();
    const parked = phase('park', o);
    const resumed = phase('resume', o);
    print({ peer: 'DBOS', dbos: versionOf('@dbos-inc/dbos-sdk'), version: versionOf('@dbos-inc/dbos-sdk'), store: 'Postgres', runs: o.runs, batch: o.batch, ...shapes, parked: parked.parked, resume: resumed });
  }
} finally {
  await DBOS.shutdown();
}
