import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { KowalskiError } from '../../core/index.js';
import { loadHorde } from '../../engine/horde/index.js';
import { checkDraft, draftStage, exampleDraft, renderDraft, writeDraft } from '../../engine/rookery/index.js';
import type { HordeDraft } from '../../engine/rookery/index.js';
import { tempDir } from '../../testkit/tmp.js';

const TRICKY = 'He said "hi" \\ then\nleft — żółw 🐧 \'quoted\' """ ]] = #';

/** A draft that uses every field the format has. */
function fullDraft(): HordeDraft {
  return {
    id: 'full-house',
    display_name: TRICKY,
    description: `Everything.\n${TRICKY}`,
    steps: [
      {
        name: 'intake', kind: 'ingest', display_name: 'Intake', description: TRICKY, prompt_body: '', output: 'in/intake.md', context_paths: [], tools: [],
        inputs: [
          { id: 'project_path', type: 'path', label: 'Project', required: true, placeholder: '~/code/x' },
          { id: 'mode', type: 'choice', label: TRICKY, options: ['fast', 'slow "careful"'], default: 'fast' },
        ],
      },
      {
        name: 'dev', kind: 'process', display_name: 'Dev', description: '', prompt_body: `Do it.\n${TRICKY}\n`, output: 'dev.md', context_paths: ['@artifact@', '@step:intake@', 'notes/a.md'],
        tools: ['read_file', 'web_fetch'], model: 'anthropic:claude-sonnet-4-5', inputs: [], timeout_secs: 120, isolation: 'process',
      },
      {
        name: 'check', kind: 'verify', display_name: 'Check', description: '', prompt_body: '', output: 'check.md', context_paths: ['@artifact@'], tools: [], inputs: [],
        verify_command: 'npm test -- --grep "a b" {{input.project_path}}', verify_cwd: 'pkg',
      },
      {
        name: 'land', kind: 'apply', display_name: 'Land', description: '', prompt_body: '', output: 'land.md', context_paths: ['@step:dev@'], tools: [], inputs: [], apply_mode: 'execute',
      },
    ],
    edges: [
      { from: 'intake', to: 'dev' },
      { from: 'dev', to: 'check', when: 'always' },
      { from: 'check', to: 'dev', when: 'fail', max_loops: 3 },
      { from: 'check', to: 'land', when: 'pass' },
    ],
    triggers: [{ name: 'nightly', kind: 'cron', schedule: '0 6 * * 1-5', timezone: 'Europe/Warsaw', enabled: false, input: { project_path: '~/code/x' } }],
    workdir: 'out/put',
    delivery_root_rel: 'land.md',
    confirm_commands: false,
    display: { default_question: TRICKY, prompt_tip: 'tip' },
  };
}

void test('render → load: every field survives, strings with quotes, newlines and any script round-trip', async (t) => {
  const root = tempDir(t);
  const draft = fullDraft();
  const dir = path.join(root, draft.id);
  for (const [rel, text] of renderDraft(draft)) {
    fs.mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
    fs.writeFileSync(path.join(dir, rel), text);
  }
  const r = await loadHorde(dir);
  assert.ok(r.ok, r.ok ? '' : JSON.stringify(r.problems));
  const h = r.horde;
  assert.deepEqual(r.warnings, []);
  assert.equal(h.displayName, TRICKY);
  assert.equal(h.description, draft.description);
  assert.deepEqual(h.pipeline, ['intake', 'dev', 'check', 'land']);
  assert.equal(h.workdir, 'out/put');
  assert.equal(h.deliveryRootRel, 'land.md');
  assert.equal(h.confirmCommands, false);
  assert.deepEqual(h.display, { default_question: TRICKY, prompt_tip: 'tip' });
  assert.deepEqual(h.edges.filter((e) => !e.implicit).map((e) => [e.from, e.to, e.when, e.maxLoops]), [
    ['intake', 'dev', 'always', undefined], ['dev', 'check', 'always', undefined], ['check', 'dev', 'fail', 3], ['check', 'land', 'pass', undefined],
  ]);
  assert.deepEqual(h.triggers.map((tr) => [tr.name, tr.kind, tr.schedule, tr.timezone, tr.enabled, tr.input]), [['nightly', 'cron', '0 6 * * 1-5', 'Europe/Warsaw', false, { project_path: '~/code/x' }]]);
  assert.deepEqual(h.inputs, [
    { id: 'project_path', type: 'path', label: 'Project', required: true, placeholder: '~/code/x' },
    { id: 'mode', type: 'choice', label: TRICKY, required: false, options: ['fast', 'slow "careful"'], default: 'fast' },
  ]);
  const { intake, dev, check, land } = h.steps;
  assert.ok(intake && dev && check && land);
  assert.equal(intake.description, TRICKY);
  assert.equal(intake.output, 'in/intake.md');
  assert.deepEqual(dev.tools, ['read_file', 'web_fetch']);
  assert.equal(dev.model, 'anthropic:claude-sonnet-4-5');
  assert.equal(dev.timeoutSecs, 120);
  assert.equal(dev.isolation, 'process');
  assert.deepEqual(dev.context, ['@artifact@', '@step:intake@', 'notes/a.md']);
  assert.equal(fs.readFileSync(path.join(dir, dev.promptFile ?? ''), 'utf8'), draft.steps[1]?.prompt_body);
  assert.equal(check.verifyCommand, 'npm test -- --grep "a b" {{input.project_path}}');
  assert.equal(check.verifyCwd, 'pkg');
  assert.equal(land.applyMode, 'execute');
  assert.equal(intake.promptFile, undefined, 'a step with no prompt gets no prompt file');
  assert.ok(fs.existsSync(path.join(dir, 'README.md')));
});

void test('check: the example is ok and stays as it is', async () => {
  const c = await checkDraft(exampleDraft());
  assert.deepEqual(c.problems, []);
  assert.equal(c.ok, true);
  assert.deepEqual(c.draft, exampleDraft());
  assert.equal(draftStage(c, false), 'proposed');
  assert.equal(draftStage(c, true), 'born');
});

void test('check: an invented step kind is an error on that step naming the kind and the known kinds', async () => {
  const draft = exampleDraft();
  (draft.steps[1] as { kind: string }).kind = 'summon_llama';
  const c = await checkDraft(draft);
  assert.equal(c.ok, false);
  assert.equal(draftStage(c, false), 'interview');
  const kinds = c.problems.filter((p) => p.code === 'KW_ERR_STEP_KIND_UNKNOWN');
  assert.equal(kinds.length, 1, 'said once, not again by the loader');
  assert.equal(kinds[0]?.step, 'process');
  assert.equal(kinds[0]?.key, 'kind');
  assert.equal(kinds[0]?.file, 'agents/process.md');
  assert.match(kinds[0]?.message ?? '', /"summon_llama".*ingest, verify/);
});

void test('check: an unknown tool is a warning on its step; a tool the caller knows is not', async () => {
  const draft = exampleDraft();
  (draft.steps[1] as { tools: string[] }).tools = ['crm.lookup'];
  const c = await checkDraft(draft);
  assert.equal(c.ok, true);
  assert.deepEqual(c.problems.map((p) => [p.severity, p.code, p.step, p.key]), [['warning', 'KW_WARN_TOOL_UNKNOWN', 'process', 'tool_ids[0]']]);
  assert.equal(c.problems[0]?.line, undefined, 'no line: the file is not the draft');
  const known = await checkDraft(draft, { knownTools: new Set(['crm.lookup']) });
  assert.deepEqual(known.problems, []);
});

void test('check: a back edge without max_loops is an error at that edge key of horde.md', async () => {
  const draft = exampleDraft();
  draft.edges = [{ from: 'ingest', to: 'process' }, { from: 'process', to: 'deliver' }, { from: 'deliver', to: 'process', when: 'fail' }];
  const c = await checkDraft(draft);
  assert.equal(c.ok, false);
  const p = c.problems.find((x) => x.code === 'KW_ERR_EDGE_LOOP_UNBOUNDED');
  assert.equal(p?.file, 'horde.md');
  assert.equal(p?.key, 'edges[2].max_loops');
  assert.equal(p?.step, undefined);
  draft.edges = [{ from: 'ingest', to: 'process', when: 'Sometimes' as 'pass' }];
  const when = await checkDraft(draft);
  assert.deepEqual(when.problems.filter((x) => x.severity === 'error').map((x) => [x.file, x.key]), [['horde.md', 'edges[0].when']]);
  assert.match(when.problems[0]?.message ?? '', /sometimes/);
});

void test('check: no id, no steps, a step named but never described', async () => {
  const c = await checkDraft({ description: 'nothing yet' });
  assert.deepEqual(c.problems.filter((p) => p.severity === 'error').map((p) => [p.code, p.key]), [['KW_ERR_KEY_MISSING', 'id'], ['KW_ERR_PIPELINE_EMPTY', 'pipeline']]);
  const ghost = await checkDraft({ id: 'g', pipeline: ['ingest', 'ghost'], penguins: [{ name: 'ingest', kind: 'ingest' }] });
  const p = ghost.problems.find((x) => x.step === 'ghost');
  assert.equal(p?.code, 'KW_ERR_KEY_MISSING');
  assert.match(p?.message ?? '', /no kind/);
});

void test('check: over 200 steps or 1 MB of JSON is refused with KW_ERR_DRAFT_TOO_LARGE', async () => {
  const many = { id: 'many', steps: Array.from({ length: 201 }, (_, i) => ({ name: `s${i}`, kind: 'process' })) };
  await assert.rejects(checkDraft(many), (err: unknown) => err instanceof KowalskiError && err.code === 'KW_ERR_DRAFT_TOO_LARGE' && /201 steps/.test(err.message));
  const big = { ...exampleDraft(), description: 'x'.repeat(1_000_001) };
  await assert.rejects(checkDraft(big), (err: unknown) => err instanceof KowalskiError && err.code === 'KW_ERR_DRAFT_TOO_LARGE');
  await assert.rejects(checkDraft('a string'), (err: unknown) => err instanceof KowalskiError && err.code === 'KW_ERR_DRAFT_INVALID');
});

void test('write: atomic into <root>/<id>, refused when it exists, replaced with overwrite; no temp folders left', async (t) => {
  const root = path.join(tempDir(t), 'made', 'here');
  const born = await writeDraft(exampleDraft(), { outputRoot: root });
  assert.equal(born.horde_id, 'rookery-demo');
  assert.equal(born.horde_root, path.join(root, 'rookery-demo'));
  assert.equal(born.validate_ok, true);
  assert.deepEqual(born.problems, []);
  assert.ok(fs.statSync(path.join(born.horde_root, 'horde.md')).isFile());
  fs.writeFileSync(path.join(born.horde_root, 'mine.txt'), 'the operator wrote this');

  const changed = { ...exampleDraft(), display_name: 'Second' };
  await assert.rejects(writeDraft(changed, { outputRoot: root }), (err: unknown) => err instanceof KowalskiError && err.code === 'KW_ERR_HORDE_EXISTS' && err.message.includes(born.horde_root));
  assert.ok(fs.existsSync(path.join(born.horde_root, 'mine.txt')), 'a refused write leaves the folder alone');

  const again = await writeDraft(changed, { outputRoot: root, overwrite: true });
  assert.equal(again.validate_ok, true);
  assert.match(fs.readFileSync(path.join(again.horde_root, 'horde.md'), 'utf8'), /display_name = "Second"/);
  assert.ok(!fs.existsSync(path.join(again.horde_root, 'mine.txt')), 'overwrite replaces the folder as a whole');
  assert.deepEqual(fs.readdirSync(root), ['rookery-demo'], 'no temp or old folder is left beside it');
});

void test('write: a draft with errors is refused with its first problems, nothing written', async (t) => {
  const root = tempDir(t);
  const draft = exampleDraft();
  (draft.steps[2] as { kind: string }).kind = 'teleport';
  await assert.rejects(writeDraft(draft, { outputRoot: root }), (err: unknown) => err instanceof KowalskiError && err.code === 'KW_ERR_DRAFT_INVALID' && /teleport/.test(err.message) && /KW_ERR_STEP_KIND_UNKNOWN/.test(err.message));
  assert.deepEqual(fs.readdirSync(root), []);
});

void test('write: the id cannot escape the output root', async (t) => {
  const root = path.join(tempDir(t), 'root');
  const born = await writeDraft({ ...exampleDraft(), id: '../../etc/evil' }, { outputRoot: root });
  assert.equal(born.horde_id, 'etc-evil');
  assert.equal(path.dirname(born.horde_root), root);
  await assert.rejects(writeDraft({ ...exampleDraft(), id: '../..', display_name: '' }, { outputRoot: root }), (err: unknown) => err instanceof KowalskiError && err.code === 'KW_ERR_DRAFT_INVALID' && /no id/.test(err.message));
  assert.deepEqual(fs.readdirSync(root), ['etc-evil']);
});

void test('check: a draft that writes only its loop back validates — the line it leaves out is written in, on pass out of the step whose failure loops', async () => {
  const draft = {
    ...exampleDraft(),
    steps: [...exampleDraft().steps.slice(0, 2), { name: 'check', kind: 'verify', verify_command: 'true' }, exampleDraft().steps[2]],
    edges: [{ from: 'check', to: 'process', when: 'fail', max_loops: 2 }],
  };
  const c = await checkDraft(draft);
  assert.deepEqual(c.problems.filter((p) => p.severity === 'error'), []);
  assert.ok(c.ok);
  assert.deepEqual(c.draft.edges, [
    { from: 'check', to: 'process', when: 'fail', max_loops: 2 },
    { from: 'ingest', to: 'process', when: 'always' },
    { from: 'process', to: 'check', when: 'always' },
    { from: 'check', to: 'deliver', when: 'pass' },
  ]);
});

void test('check: a review step gets no output (a review writes nothing), checks ok, and loads showing the file of the step before it', async (t) => {
  // As the app's "add a step" sends it (output ''), and as a builder might (an output the loader would refuse).
  for (const output of ['', 'review.md']) {
    const draft = { ...exampleDraft(), steps: [...exampleDraft().steps.slice(0, 2), { name: 'approve', kind: 'review', output }, exampleDraft().steps[2]] };
    const c = await checkDraft(draft);
    assert.deepEqual(c.problems.filter((p) => p.severity === 'error'), [], output);
    assert.ok(c.ok);
    assert.equal(c.draft.steps.find((s) => s.name === 'approve')?.output, '');
    const dir = path.join(tempDir(t), c.draft.id);
    await writeDraft(c.draft, { outputRoot: path.dirname(dir) });
    assert.doesNotMatch(fs.readFileSync(path.join(dir, 'agents', 'approve.md'), 'utf8'), /^output/m);
    assert.match(fs.readFileSync(path.join(dir, 'README.md'), 'utf8'), /\(`approve`, review\) writes nothing of its own/);
    const loaded = await loadHorde(dir);
    assert.ok(loaded.ok, JSON.stringify(loaded.ok ? [] : loaded.problems));
    assert.equal(loaded.horde.steps.approve?.output, loaded.horde.steps.process?.output, 'it shows what the step before it wrote');
  }
});
