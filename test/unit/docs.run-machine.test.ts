/** docs/run-machine.md is generated from the run machine; this test fails when they differ (UPDATE_DOCS=1 rewrites it). */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runMachine } from '../../actors/index.js';
import { STEP_MOVES } from '../../actors/run.step.js';
import { machineMarkdown } from '../support/machine-doc.js';

const DOC = path.join(import.meta.dirname, '..', '..', 'docs', 'run-machine.md');
const INTRO = [
  'Generated from `actors/run.machine.ts` by `test/unit/docs.run-machine.test.ts` (`UPDATE_DOCS=1 node --import tsx --test test/unit/docs.run-machine.test.ts` rewrites it).',
  '',
  'Every run is this machine. Each event is appended to the log before it takes effect; folding a run\'s log through the machine gives its state. `settling` is not a resting state: after an event that can change what the run waits for, it picks the state the run\'s steps add up to. The effects `dispatch` (hand a step attempt to a worker) and `kill` (stop the attempts still running once the run ended) are performed by the engine only after the events that caused them are committed.',
].join('\n');

/** A step's life (actors/run.step.ts), and where the run's decisions are made (actors/run.decide.ts). */
function stepsMarkdown(): string {
  const lines = [
    '## A step\'s life', '',
    'Inside a run, each step has a status, moved only as this table declares (`actors/run.step.ts`; the property tests check every move a fold makes against it). Roots start `ready`, the other steps `pending`.', '',
    '| from | to | when |', '|---|---|---|',
  ];
  for (const [from, tos] of Object.entries(STEP_MOVES)) for (const [to, why] of Object.entries(tos)) lines.push(`| ${from} | ${to} | ${why.replaceAll('|', '\\|')} |`);
  lines.push(
    '', '## The decisions', '',
    'After the events of an input are applied, `decide(context, facts)` (`actors/run.decide.ts`, pure) says what the run does next: a step `unknown` after a crash asks the operator (`approval.requested`, outcome_unknown); a `ready` step that must ask first asks (a review on its artifact, once per pass; a command to confirm unless that very command was approved; a re-run step reusing a result asks nothing); otherwise it starts (`step.started`) when a slot is free and the run is under its budget, or the run parks for its budget (`budget.exceeded`, once). The facts are the engine\'s: the free slots, a step\'s command and hash, a review\'s artifact, what the run spent. The engine applies each decided event to this machine, which must accept it, and commits them with the events that led there.', '',
  );
  return lines.join('\n');
}

test('docs/run-machine.md is the run machine as it is', () => {
  const generated = `${machineMarkdown(runMachine, 'The run machine', INTRO)}\n${stepsMarkdown()}`;
  if (process.env.UPDATE_DOCS === '1') fs.writeFileSync(DOC, generated);
  assert.equal(fs.readFileSync(DOC, 'utf8'), generated, 'docs/run-machine.md is stale: run this test with UPDATE_DOCS=1');
});
