/** docs/run-machine.md is generated from the run machine; this test fails when they differ (UPDATE_DOCS=1 rewrites it). */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runMachine } from '../../actors/index.js';
import { machineMarkdown } from '../support/machine-doc.js';

const DOC = path.join(import.meta.dirname, '..', '..', 'docs', 'run-machine.md');
const INTRO = [
  'Generated from `actors/run.machine.ts` by `test/unit/docs.run-machine.test.ts` (`UPDATE_DOCS=1 node --import tsx --test test/unit/docs.run-machine.test.ts` rewrites it).',
  '',
  'Every run is this machine. Each event is appended to the log before it takes effect; folding a run\'s log through the machine gives its state. `settling` is not a resting state: after an event that can change what the run waits for, it picks the state the run\'s steps add up to. The effects `dispatch` (hand a step attempt to a worker) and `kill` (stop the attempts still running once the run ended) are performed by the engine only after the events that caused them are committed.',
].join('\n');

test('docs/run-machine.md is the run machine as it is', () => {
  const generated = machineMarkdown(runMachine, 'The run machine', INTRO);
  if (process.env.UPDATE_DOCS === '1') fs.writeFileSync(DOC, generated);
  assert.equal(fs.readFileSync(DOC, 'utf8'), generated, 'docs/run-machine.md is stale: run this test with UPDATE_DOCS=1');
});
