// Mastra (workflows, LibSQL storage in a file) in the peers' shape (issue 35): a workflow
// of 6 no-op steps, one at a time and in Promise.all batches; then runs of a workflow
// whose step 3 suspends until resumed, parked by one process and resumed by a new one.
// Not part of kowalski: bench/peers/install.sh installs it. Prints one JSON line.
import path from 'node:path';
import { Mastra } from '@mastra/core';
import { createStep, createWorkflow } from '@mastra/core/workflows';
import { LibSQLStore } from '@mastra/libsql';
import { z } from 'zod';
import { STEPS, args, parkPhase, phase, print, resumePhase, versionOf, w1Shapes } from './common.mjs';

const o = args();
const empty = z.object({});
const noop = (id) => createStep({ id, inputSchema: empty, outputSchema: empty, execute: async () => ({}) });
const gate = createStep({
  id: 's3', inputSchema: empty, outputSchema: empty, resumeSchema: z.object({ approved: z.boolean() }),
  execute: async ({ resumeData, suspend }) => (resumeData?.approved === true ? {} : suspend({})),
});
let w1 = createWorkflow({ id: 'w1', inputSchema: empty, outputSchema: empty });
for (let i = 1; i <= STEPS; i += 1) w1 = w1.then(noop(`s${i}`));
const park = createWorkflow({ id: 'park', inputSchema: empty, outputSchema: empty })
  .then(noop('s1')).then(noop('s2')).then(gate).then(noop('s4')).then(noop('s5')).then(noop('s6'));
const mastra = new Mastra({
  workflows: { w1: w1.commit(), park: park.commit() },
  storage: new LibSQLStore({ id: 'bench', url: `file:${path.join(o.dir, 'mastra.db')}` }),
  logger: false,
});

const start = async (id) => {
  const run = await mastra.getWorkflow(id).createRun();
  return { run, result: await run.start({ inputData: {} }) };
};

if (o.phase === 'park') {
  print(await parkPhase(async (n) => {
    const parked = await Promise.all(Array.from({ length: n }, () => start('park')));
    return parked.filter((p) => p.result.status === 'suspended').map((p) => p.run.runId);
  }, o));
} else if (o.phase === 'resume') {
  print(await resumePhase((ids) => Promise.all(ids.map(async (runId) => {
    const run = await mastra.getWorkflow('park').createRun({ runId });
    return (await run.resume({ step: 's3', resumeData: { approved: true } })).status === 'success';
  })), o));
} else {
  const shapes = await w1Shapes(async () => (await start('w1')).result.status === 'success', o);
  const parked = phase('park', o);
  const resumed = phase('resume', o);
  print({ peer: 'Mastra', version: versionOf('@mastra/core'), store: 'LibSQL file', ...shapes, parked: parked.parked, resume: resumed });
}
