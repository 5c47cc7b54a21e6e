import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { KowalskiError } from '../../core/index.js';
import { exampleDraft, listHordeFolders, removeStep, setEdges, setHordeFields, setStep, stepKindList, writeDraft } from '../../engine/rookery/index.js';
import { tempDir } from '../../testkit/tmp.js';

const invalid = (pattern: RegExp) => (err: unknown): boolean => err instanceof KowalskiError && err.code === 'KW_ERR_DRAFT_INVALID' && pattern.test(err.message);

void test('setHordeFields: sets, normalises the id, leaves the argument alone', () => {
  const before = exampleDraft();
  const d = setHordeFields(before, { id: 'My Digest', confirm_commands: false, display: { prompt_tip: 'Be brief' }, triggers: [{ name: 'n', kind: 'webhook' }] });
  assert.equal(d.id, 'my-digest');
  assert.equal(d.confirm_commands, false);
  assert.deepEqual(d.display, { prompt_tip: 'Be brief' });
  assert.deepEqual(d.triggers, [{ name: 'n', kind: 'webhook' }]);
  assert.deepEqual(before, exampleDraft());
  assert.throws(() => setHordeFields(before, { id: '!!!' }), invalid(/no letter or digit/));
});

void test('setStep: a new step is appended or placed after another, with defaults filled', () => {
  const appended = setStep(exampleDraft(), { name: 'Double Check', kind: 'verify', verify_command: 'true' });
  assert.deepEqual(appended.steps.map((s) => s.name), ['ingest', 'process', 'deliver', 'double-check']);
  assert.equal(appended.steps[3]?.output, 'double-check.md');
  assert.deepEqual(appended.steps[3]?.context_paths, ['@artifact@']);
  const placed = setStep(exampleDraft(), { name: 'review' }, { after: 'ingest' });
  assert.deepEqual(placed.steps.map((s) => [s.name, s.kind]), [['ingest', 'ingest'], ['review', 'process'], ['process', 'process'], ['deliver', 'deliver']]);
});

void test('setStep: an existing step is merged, renamed (edges and @step: follow) and moved', () => {
  const withEdges = setEdges(exampleDraft(), [{ from: 'ingest', to: 'process' }, { from: 'process', to: 'deliver', when: 'pass' }]);
  const d = setStep(withEdges, { name: 'process', model: 'ollama:llama3' }, { rename: 'Extract Facts' });
  const step = d.steps[1];
  assert.equal(step?.name, 'extract-facts');
  assert.equal(step?.model, 'ollama:llama3');
  assert.equal(step?.prompt_body, exampleDraft().steps[1]?.prompt_body, 'fields not given are kept');
  assert.deepEqual(d.edges, [{ from: 'ingest', to: 'extract-facts' }, { from: 'extract-facts', to: 'deliver', when: 'pass' }]);
  assert.deepEqual(d.steps[2]?.context_paths, ['@step:ingest@', '@step:extract-facts@']);
  const moved = setStep(d, { name: 'deliver' }, { after: 'ingest' });
  assert.deepEqual(moved.steps.map((s) => s.name), ['ingest', 'deliver', 'extract-facts']);
});

void test('setStep: nonsense is refused with what is wrong', () => {
  assert.throws(() => setStep(exampleDraft(), { name: 'nope' }, { rename: 'x' }), invalid(/no step "nope" to rename/));
  assert.throws(() => setStep(exampleDraft(), { name: 'process' }, { rename: 'deliver' }), invalid(/a step of that name exists/));
  assert.throws(() => setStep(exampleDraft(), { name: 'x' }, { after: 'ghost' }), invalid(/no step "ghost".*ingest, process, deliver/));
  assert.throws(() => setStep(exampleDraft(), { name: '***' }), invalid(/no letter or digit/));
});

void test('removeStep: drops the step, its edges and the references to it', () => {
  const withEdges = setEdges(exampleDraft(), [{ from: 'ingest', to: 'process' }, { from: 'process', to: 'deliver' }]);
  const d = removeStep(withEdges, 'process');
  assert.deepEqual(d.steps.map((s) => s.name), ['ingest', 'deliver']);
  assert.deepEqual(d.edges, []);
  assert.deepEqual(d.steps[1]?.context_paths, ['@step:ingest@']);
  assert.throws(() => removeStep(d, 'process'), invalid(/no step "process" to remove/));
});

void test('setEdges: edges trimmed and lower-cased; an edge to an unknown step is refused', () => {
  const d = setEdges(exampleDraft(), [{ from: 'deliver', to: 'process', when: ' FAIL ' as 'fail', max_loops: 2 }]);
  assert.deepEqual(d.edges, [
    { from: 'deliver', to: 'process', when: 'fail', max_loops: 2 },
    // Written edges are the whole graph: the line a loop alone leaves out is written in.
    { from: 'ingest', to: 'process', when: 'always' },
    { from: 'process', to: 'deliver', when: 'always' },
  ]);
  assert.throws(() => setEdges(exampleDraft(), [{ from: 'ingest', to: 'ghost' }]), invalid(/edges\[0\] names step "ghost"/));
});

void test('stepKindList: every built-in kind, model or not, each with a summary', () => {
  const kinds = stepKindList();
  assert.deepEqual(kinds.slice(0, 3).map((k) => [k.kind, k.model]), [['ingest', false], ['verify', false], ['apply', false]]);
  assert.equal(kinds.find((k) => k.kind === 'deliver')?.model, true);
  assert.ok(kinds.every((k) => k.summary.length > 10));
});

void test('listHordeFolders: the folders under a root, valid or not; [] for a root that does not exist', async (t) => {
  const root = tempDir(t);
  assert.deepEqual(await listHordeFolders(`${root}/none`), []);
  const born = await writeDraft(exampleDraft(), { outputRoot: root });
  const broken = await writeDraft({ ...exampleDraft(), id: 'broken' }, { outputRoot: root });
  fs.writeFileSync(`${broken.horde_root}/agents/process.md`, '---\nname = "process"\n---\n');
  const list = await listHordeFolders(root);
  assert.deepEqual(list.map((h) => [h.id, h.display_name, h.path, h.valid]).sort(), [
    ['broken', 'broken', broken.horde_root, false],
    ['rookery-demo', 'Rookery demo', born.horde_root, true],
  ]);
});
