/** The Rookery tab's own logic, run here in Node: a draft drawn as the horde graph (a straight line, a loop back), the edits the direct editor sends. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { layoutGraph } from '../../ui/src/graph-layout.js';
import { draftGraph, hordeProblems, listOf, stepProblems, withNewStep, withoutStep, withStep } from '../../ui/src/rookery-draft.js';
import type { DraftStep, HordeDraft } from '../../ui/src/types.js';

const step = (name: string, kind: string): DraftStep => ({ name, kind, display_name: name, description: '', prompt_body: '', output: `${name}.md`, context_paths: [], tools: [], inputs: [] });
const draft = (edges: HordeDraft['edges'] = []): HordeDraft => ({
  id: 'fix', display_name: 'Fix', description: '', steps: [step('ingest', 'ingest'), step('work', 'process'), step('check', 'verify')], edges, triggers: [],
});

test('a draft without edges is drawn as the straight line the loader reads; a loop back is drawn back, with its cap', () => {
  const line = draftGraph(draft());
  assert.deepEqual(line.pipeline, ['ingest', 'work', 'check']);
  assert.deepEqual(line.edges.map((e) => [e.from, e.to, e.when, e.implicit, e.back]), [['ingest', 'work', 'always', true, false], ['work', 'check', 'always', true, false]]);
  const loop = draftGraph(draft([{ from: 'ingest', to: 'work' }, { from: 'work', to: 'check' }, { from: 'check', to: 'work', when: 'fail', max_loops: 2 }]));
  assert.deepEqual(loop.edges.map((e) => [e.from, e.to, e.when, e.back, e.maxLoops]), [['ingest', 'work', 'always', false, undefined], ['work', 'check', 'always', false, undefined], ['check', 'work', 'fail', true, 2]]);
  const layout = layoutGraph(loop.pipeline, loop.edges);
  assert.equal(layout.nodes.length, 3);
  assert.ok(layout.edges.some((e) => e.back && e.from === 'check'), 'the loop is laid out as a back edge');
});

test('the editor\'s edits: a new step at the end, a renamed step takes its edges along, a removed step its edges with it', () => {
  const d = draft([{ from: 'ingest', to: 'work' }, { from: 'work', to: 'check' }, { from: 'check', to: 'work', when: 'fail', max_loops: 2 }]);
  assert.deepEqual(withNewStep(d, 'deliver', 'deliver').steps.map((s) => [s.name, s.kind]).at(-1), ['deliver', 'deliver']);
  const renamed = withStep(d, 'work', { ...step('fix', 'process'), prompt_body: 'Fix it.' });
  assert.deepEqual(renamed.steps.map((s) => s.name), ['ingest', 'fix', 'check']);
  assert.deepEqual(renamed.edges.map((e) => `${e.from}>${e.to}`), ['ingest>fix', 'fix>check', 'check>fix']);
  assert.deepEqual(withoutStep(d, 'check').edges, [{ from: 'ingest', to: 'work' }]);
  assert.deepEqual(d.steps.length, 3, 'the draft given is left alone');
  assert.deepEqual(listOf(' web_fetch, ,read_file '), ['web_fetch', 'read_file']);
});

test('problems are shown at their step, or at the horde when they are in no step', () => {
  const problems = [
    { severity: 'error' as const, code: 'KW_ERR_KEY_MISSING', file: 'agents/check.md', key: 'verify_command', message: 'missing', step: 'check' },
    { severity: 'error' as const, code: 'KW_ERR_KEY_MISSING', file: 'horde.md', key: 'id', message: 'no id' },
  ];
  assert.deepEqual(stepProblems(problems, 'check').map((p) => p.key), ['verify_command']);
  assert.deepEqual(stepProblems(problems, 'work'), []);
  assert.deepEqual(hordeProblems(problems).map((p) => p.key), ['id']);
});
