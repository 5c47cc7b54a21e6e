import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { formatProblems, loadHorde } from '../../engine/horde/index.js';
import {
  FIXTURES, baseFiles, copyFixture, expectError, expectOk, expectProblem, writeHorde,
} from '../fixtures/hordes/temp-horde.js';
import { cleanups } from '../../testkit/cleanup.js';

void test('a 1.x folder loads unchanged: aliases, display keys, unknown keys, fs_tool, `when` in any case', async () => {
  const { horde, warnings } = expectOk(await loadHorde(path.join(FIXTURES, 'legacy-1x')));
  assert.deepEqual(warnings, []);
  assert.equal(horde.id, 'legacy-1x');
  assert.equal(horde.displayName, 'Legacy Dev Loop');
  assert.deepEqual(horde.pipeline, ['ingest', 'dev-1', 'test-verify', 'deliver']);
  assert.equal(horde.workdir, 'output');
  assert.equal(horde.deliveryRootRel, 'HANDOFF.md');
  assert.equal(horde.confirmCommands, true);
  assert.equal(horde.origin, 'path');
  assert.equal(horde.display.default_question, 'What should be built?');
  assert.equal(horde.display.capability_prefix, 'legacy-1x');
  assert.equal(horde.display.artifacts_root, '.');
  assert.deepEqual(horde.extra, { federation_mode: 'broker', retries: 3 });
  assert.match(horde.body, /# Legacy Dev Loop/);

  const dev = horde.steps['dev-1'];
  assert.ok(dev);
  assert.deepEqual(dev.tools, ['fs_tool', 'web_search'], 'fs_tool is kept: the engine offers it as the project folder\'s file tools');
  assert.deepEqual(dev.context, ['@artifact@', '@step:ingest@', 'templates/style.md']);
  assert.equal(dev.promptFile, 'prompts/dev.md');
  assert.equal(dev.output, 'debug/dev-1.md');
  assert.deepEqual(dev.extra, { avatar: '🐧', temperature: 0.2 });
  assert.deepEqual(dev.normalize, { docTitle: 'Implementation', sections: ['Plan', 'Code'], fallback: 'No code was produced.', fallbackSections: ['Notes'] });
  assert.equal(horde.steps.ingest?.output, 'debug/ingest.md', 'a trailing / means <folder>/<step>.md');
  assert.deepEqual(horde.steps.ingest?.extra, { capability: 'legacy-1x.ingest', default_agent_id: 'legacy-1x-ingest' });
  assert.equal(horde.steps.ingest?.displayName, 'Intake');
  assert.equal(horde.steps['test-verify']?.displayName, 'test-verify', 'display_name defaults to the name');

  // The written edges are the whole graph: the loop-back edge and the written straight line; `when = "Pass"` is `pass`.
  assert.deepEqual(horde.edges, [
    { from: 'test-verify', to: 'dev-1', when: 'fail', maxLoops: 2, back: true, implicit: false },
    { from: 'ingest', to: 'dev-1', when: 'always', back: false, implicit: false },
    { from: 'dev-1', to: 'test-verify', when: 'always', back: false, implicit: false },
    { from: 'test-verify', to: 'deliver', when: 'pass', back: false, implicit: false },
  ]);
  assert.deepEqual(horde.inputs.map((i) => i.id), ['question', 'language']);
});

void test('every new key loads: +++ fences, new aliases, triggers, inputs, apply, placeholders', async () => {
  const { horde, warnings } = expectOk(await loadHorde(path.join(FIXTURES, 'full'), { origin: 'builtin' }));
  assert.equal(horde.origin, 'builtin');
  assert.equal(horde.confirmCommands, false);
  assert.equal(horde.workdir, 'work');
  assert.equal(horde.deliveryRootRel, 'reports/HANDOFF.md');
  assert.equal(horde.displayName, 'Every key');
  assert.deepEqual(horde.display, {});

  const intake = horde.steps.intake;
  assert.equal(intake?.output, 'intake/intake.md', 'writes = "intake/" → intake/intake.md');
  assert.equal(intake?.timeoutSecs, 30);
  const plan = horde.steps.plan;
  assert.deepEqual(plan?.context, ['@artifact@', 'notes/extra.md']);
  assert.deepEqual(plan?.tools, ['read_file', 'data.query', 'fs_tool']);
  assert.equal(plan?.model, 'ollama:qwen2.5:7b');
  assert.equal(plan?.isolation, 'process');
  assert.equal(horde.steps.patch?.applyMode, 'execute');
  assert.equal(horde.steps.patch?.verifyCwd, '{{input.project}}');
  assert.equal(horde.steps.check?.applyMode, undefined, 'apply_mode only on apply steps');
  assert.equal(horde.steps.check?.isolation, 'in_process');

  // An MCP tool nothing provides yet is a warning, not an error.
  expectProblem({ ok: true, horde, warnings }, { code: 'KW_WARN_TOOL_UNKNOWN', file: 'agents/plan.md', key: 'tools[1]', line: 7, severity: 'warning' });
  assert.equal(warnings.length, 1);

  const form = horde.inputs;
  assert.deepEqual(form.map((i) => [i.id, i.type, i.label, i.required]), [
    ['project', 'path', 'Project folder', true],
    ['mode', 'choice', 'mode', false],
    ['notes', 'textarea', 'notes', false],
    ['link', 'url', 'link', false],
    ['sheet', 'file', 'sheet', false],
    ['title', 'text', 'title', false],
  ]);
  assert.deepEqual(form[1]?.options, ['fast', 'thorough']);
  assert.equal(form[1]?.default, 'thorough');
  assert.deepEqual(horde.triggers.map((t) => t.name), ['nightly', 'inbox', 'from-ci']);
});

void test('a loaded horde is plain JSON: it survives a JSON round trip and structuredClone', async () => {
  for (const name of ['legacy-1x', 'full', 'fork-join']) {
    const { horde } = expectOk(await loadHorde(path.join(FIXTURES, name)));
    assert.deepEqual(JSON.parse(JSON.stringify(horde)), horde, name);
    assert.deepEqual(structuredClone(horde), horde, name);
  }
});

void test('defaults: no edges = straight line of always edges (as in 1.x); workdir output; HANDOFF.md; confirm on', async (t) => {
  const h = writeHorde(baseFiles());
  cleanups(t)(h.cleanup);
  const { horde, warnings } = expectOk(await loadHorde(h.dir));
  assert.deepEqual(warnings, []);
  assert.equal(horde.displayName, 'base');
  assert.equal(horde.description, '');
  assert.equal(horde.workdir, 'output');
  assert.equal(horde.deliveryRootRel, 'HANDOFF.md');
  assert.equal(horde.confirmCommands, true);
  assert.equal(horde.steps.check?.output, 'check.md');
  assert.deepEqual(horde.edges, [
    { from: 'intake', to: 'check', when: 'always', back: false, implicit: true },
    { from: 'check', to: 'report', when: 'always', back: false, implicit: true },
  ]);
  assert.equal(horde.dir, h.dir);
  assert.match(horde.hash, /^[0-9a-f]{64}$/);
});

void test('missing id: a warning, and the folder name is used', async (t) => {
  const h = writeHorde(baseFiles({ horde: '---\npipeline = ["intake", "check", "report"]\n---\n' }), 'my-tools');
  cleanups(t)(h.cleanup);
  const r = await loadHorde(h.dir);
  expectProblem(r, { code: 'KW_WARN_ID_MISSING', file: 'horde.md', key: 'id', severity: 'warning' });
  assert.equal(expectOk(r).horde.id, 'my-tools');
});

void test('missing id with a folder name that is not an id: an error', async (t) => {
  const h = writeHorde(baseFiles({ horde: '---\npipeline = ["intake", "check", "report"]\n---\n' }), 'My Tools');
  cleanups(t)(h.cleanup);
  const p = expectError(await loadHorde(h.dir), { code: 'KW_ERR_KEY_MISSING', file: 'horde.md', key: 'id' });
  assert.match(p.message, /"My Tools" is not a valid id/);
});

void test('a bad id, pipeline type and confirm_commands type are errors on their keys and lines', async (t) => {
  const horde = '---\nid = "Bad_Id"\npipeline = "intake"\nconfirm_commands = "no"\ndisplay_name = 3\n---\n';
  const h = writeHorde(baseFiles({ horde }));
  cleanups(t)(h.cleanup);
  const r = await loadHorde(h.dir);
  expectError(r, { code: 'KW_ERR_KEY_VALUE', file: 'horde.md', key: 'id', line: 2 });
  expectError(r, { code: 'KW_ERR_KEY_TYPE', file: 'horde.md', key: 'pipeline', line: 3 });
  expectError(r, { code: 'KW_ERR_KEY_TYPE', file: 'horde.md', key: 'confirm_commands', line: 4 });
  expectError(r, { code: 'KW_ERR_KEY_TYPE', file: 'horde.md', key: 'display_name', line: 5 });
});

void test('a missing pipeline is an error', async (t) => {
  const h = writeHorde(baseFiles({ horde: '---\nid = "base"\n---\n' }));
  cleanups(t)(h.cleanup);
  expectError(await loadHorde(h.dir), { code: 'KW_ERR_KEY_MISSING', file: 'horde.md', key: 'pipeline' });
});

void test('display keys that are not strings are kept in extra, never an error', async (t) => {
  const horde = '---\nid = "base"\npipeline = ["intake", "check", "report"]\ndefault_question = 3\nprompt_tip = "tip"\n---\n';
  const h = writeHorde(baseFiles({ horde }));
  cleanups(t)(h.cleanup);
  const { horde: def } = expectOk(await loadHorde(h.dir));
  assert.deepEqual(def.display, { prompt_tip: 'tip' });
  assert.deepEqual(def.extra, { default_question: 3 });
});

void test('workdir = "../out" escapes its root: KW_ERR_PATH_ESCAPES', async (t) => {
  const horde = '---\nid = "base"\npipeline = ["intake", "check", "report"]\nworkdir = "../out"\n---\n';
  const h = writeHorde(baseFiles({ horde }));
  cleanups(t)(h.cleanup);
  expectError(await loadHorde(h.dir), { code: 'KW_ERR_PATH_ESCAPES', file: 'horde.md', key: 'workdir', line: 4 });
});

void test('an absolute workdir (1.x) loads with a warning and maps to the run\'s own output folder', async (t) => {
  const horde = '---\nid = "base"\npipeline = ["intake", "check", "report"]\nworkdir = "/tmp/out"\n---\n';
  const h = writeHorde(baseFiles({ horde }));
  cleanups(t)(h.cleanup);
  const r = await loadHorde(h.dir);
  assert.equal(expectOk(r).horde.workdir, 'output');
  const w = expectProblem(r, { code: 'KW_WARN_WORKDIR_ABSOLUTE', file: 'horde.md', key: 'workdir', line: 4, severity: 'warning' });
  assert.match(w.message, /<run>\/output and nothing is written to \/tmp\/out/);
});

for (const value of ['../HANDOFF.md', 'C:\\\\x.md', '/abs/HANDOFF.md', 'String', 'output', 'handoff', 'docs/']) {
  void test(`delivery_root_rel = "${value}" does not look like a workdir file: HANDOFF.md with KW_WARN_DELIVERY_FALLBACK (1.x)`, async (t) => {
    const horde = `---\nid = "base"\npipeline = ["intake", "check", "report"]\ndelivery_root_rel = "${value}"\n---\n`;
    const h = writeHorde(baseFiles({ horde }));
    cleanups(t)(h.cleanup);
    const r = await loadHorde(h.dir);
    assert.equal(expectOk(r).horde.deliveryRootRel, 'HANDOFF.md');
    expectProblem(r, { code: 'KW_WARN_DELIVERY_FALLBACK', file: 'horde.md', key: 'delivery_root_rel', line: 4, severity: 'warning' });
  });
}

void test('a folder without horde.md, or no folder at all, is KW_ERR_HORDE_NOT_FOUND', async (t) => {
  const h = writeHorde({ 'README.md': 'not a horde' });
  cleanups(t)(h.cleanup);
  expectError(await loadHorde(h.dir), { code: 'KW_ERR_HORDE_NOT_FOUND', file: 'horde.md' });
  expectError(await loadHorde(path.join(h.root, 'nothing-here')), { code: 'KW_ERR_HORDE_NOT_FOUND', file: 'horde.md' });
});

void test('every problem in the folder is collected in one load, each with file, key and line', async (t) => {
  const h = copyFixture('legacy-1x');
  cleanups(t)(h.cleanup);
  const set = (rel: string, from: string, to: string): void => {
    const file = path.join(h.dir, rel);
    const text = fs.readFileSync(file, 'utf8');
    assert.ok(text.includes(from), `${rel} holds ${from}`);
    fs.writeFileSync(file, text.replace(from, to));
  };
  set('horde.md', 'max_loops = 2', 'max_loops = 0');
  set('agents/dev-1.md', 'prompt_file = "prompts/dev.md"', 'prompt_file = "prompts/missing.md"');
  set('agents/test-verify.md', 'kind = "verify"', 'kind = "verfy"');
  set('agents/deliver.md', 'output = "HANDOFF.md"', 'output = "../HANDOFF.md"');
  set('agents/ingest.md', 'type = "textarea"', 'type = 3');
  const r = await loadHorde(h.dir);
  expectError(r, { code: 'KW_ERR_EDGE_LOOP_UNBOUNDED', file: 'horde.md', key: 'edges[0].max_loops', line: 23 });
  expectError(r, { code: 'KW_ERR_PROMPT_MISSING', file: 'agents/dev-1.md', key: 'prompt_file', line: 6 });
  expectError(r, { code: 'KW_ERR_STEP_KIND_UNKNOWN', file: 'agents/test-verify.md', key: 'kind', line: 3 });
  expectError(r, { code: 'KW_ERR_PATH_ESCAPES', file: 'agents/deliver.md', key: 'output', line: 5 });
  expectError(r, { code: 'KW_ERR_INPUTS_INVALID', file: 'agents/ingest.md', key: 'inputs[0].type', line: 11 });

  assert.ok(!r.ok);
  const text = formatProblems(r.problems);
  assert.match(text, /^horde\.md:23: edges\[0\]\.max_loops: .* \[KW_ERR_EDGE_LOOP_UNBOUNDED\]$/m);
  assert.match(text, /^agents\/test-verify\.md:3: kind: step kind "verfy" in agents\/test-verify\.md .* \[KW_ERR_STEP_KIND_UNKNOWN\]$/m);
  assert.equal(text.split('\n').length, r.problems.length);
  assert.equal(r.problems[0]?.file, 'horde.md', 'horde.md problems come first');
});

void test('formatProblems leaves out what a problem does not have', () => {
  const text = formatProblems([
    { severity: 'error', code: 'KW_ERR_HORDE_TOO_LARGE', file: '.', message: 'too big' },
    { severity: 'warning', code: 'KW_WARN_ID_MISSING', file: 'horde.md', key: 'id', message: 'no id' },
    { severity: 'error', code: 'KW_ERR_FRONT_MATTER', file: 'agents/a.md', line: 4, message: 'bad toml' },
  ]);
  assert.equal(text, '.: too big [KW_ERR_HORDE_TOO_LARGE]\nhorde.md: id: no id [KW_WARN_ID_MISSING]\nagents/a.md:4: bad toml [KW_ERR_FRONT_MATTER]');
});
