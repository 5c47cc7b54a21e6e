import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KowalskiError } from '../../core/index.js';
import { exampleDraft, normalizeDraft, parseDraft } from '../../engine/rookery/index.js';

const LEGACY = {
  id: 'Rust_Project Scaffolder 1.0',
  display_name: 'Rust scaffolder',
  description: 'demo',
  capability_prefix: 'rust',
  default_question: 'What shall we build?',
  delivery_title: 'Your crate',
  pipeline: ['Ingest', 'Structure', { name: 'Final Report' }],
  penguins: [
    { name: 'Final Report', kind: 'deliver', prompt_body: 'Write it up.', output: 'String', avatar: 'mock_builder', agent_body: 'x' },
    { name: 'Ingest', kind: 'ingest', prompt_body: '', output: 'debug/raw/', avatar: 'ingest' },
    { name: 'Structure', kind: 'process', prompt: 'Structure it.', output_path: 'debug/stage.md', tool_ids: ['fs_tool', ' web_search '], model_id: 'ollama:qwen2.5:7b', context_paths: ['@step:Ingest@'] },
  ],
  edges: [{ from: 'Ingest', to: 'Structure', when: '  PASS ' }],
  unknown_key: 1,
};

void test('a 1.x draft: penguins in pipeline order, kebab-case names, 1.x keys read, renames followed, unknown keys dropped', () => {
  const d = normalizeDraft(LEGACY);
  assert.equal(d.id, 'rust-project-scaffolder-1-0');
  assert.equal(d.display_name, 'Rust scaffolder');
  assert.deepEqual(d.steps.map((s) => s.name), ['ingest', 'structure', 'final-report']);
  const structure = d.steps[1];
  assert.ok(structure);
  assert.deepEqual(structure.tools, ['fs_tool', 'web_search']);
  assert.equal(structure.model, 'ollama:qwen2.5:7b');
  assert.equal(structure.prompt_body, 'Structure it.');
  assert.equal(structure.output, 'debug/stage.md');
  assert.deepEqual(structure.context_paths, ['@step:ingest@'], 'a @step: reference follows the rename');
  assert.deepEqual(d.edges, [
    { from: 'ingest', to: 'structure', when: 'pass' },
    { from: 'structure', to: 'final-report', when: 'always' },
  ], 'edge ends renamed, when trimmed and lower-cased; the rest of the line written in');
  assert.deepEqual(d.display, { default_question: 'What shall we build?', delivery_title: 'Your crate', capability_prefix: 'rust' });
  assert.equal(d.steps[0]?.output, 'debug/raw/', 'a folder output is kept');
  assert.equal(d.steps[2]?.output, 'final-report.md', 'a placeholder output ("String") is replaced by <name>.md');
  assert.equal(d.steps[2]?.display_name, 'Final Report');
  assert.ok(!('avatar' in (d.steps[2] as object)) && !('agent_body' in (d.steps[2] as object)) && !('unknown_key' in d));
});

void test('defaults: display names, outputs, what each step reads, the ingest form, a model prompt', () => {
  const d = normalizeDraft({ id: 'x', steps: [{ name: 'Fetch News', kind: 'ingest' }, { name: 'summarize' }, { name: 'deliver-it' }] });
  assert.equal(d.display_name, 'X');
  const [fetch, summarize, deliver] = d.steps;
  assert.ok(fetch && summarize && deliver);
  assert.equal(fetch.name, 'fetch-news');
  assert.equal(fetch.display_name, 'Fetch News');
  assert.equal(fetch.output, 'fetch-news.md');
  assert.deepEqual(fetch.context_paths, [], 'the first step reads nothing by default');
  assert.deepEqual(fetch.inputs.map((i) => [i.id, i.type, i.required]), [['question', 'textarea', true], ['source', 'textarea', false]]);
  assert.equal(summarize.kind, 'process', 'a missing kind is guessed from the name');
  assert.deepEqual(summarize.context_paths, ['@artifact@']);
  assert.match(summarize.prompt_body, /Summarize/);
  assert.equal(deliver.kind, 'deliver');
  assert.deepEqual(deliver.context_paths, ['@step:fetch-news@', '@step:summarize@'], 'a last deliver step reads every earlier step');
  assert.deepEqual(normalizeDraft(d), d, 'normalising twice changes nothing');
});

void test('a join reads its branches; a form declared on another step is not replaced', () => {
  const d = normalizeDraft({
    id: 'fork',
    steps: [{ name: 'a', kind: 'ingest' }, { name: 'b', kind: 'process', inputs: [{ id: 'topic' }] }, { name: 'c', kind: 'process' }, { name: 'd', kind: 'process' }],
    edges: [{ from: 'a', to: 'b' }, { from: 'a', to: 'c' }, { from: 'b', to: 'd' }, { from: 'c', to: 'd' }],
  });
  assert.deepEqual(d.steps[3]?.context_paths, ['@step:b@', '@step:c@']);
  assert.deepEqual(d.steps[0]?.inputs, []);
  assert.deepEqual(d.steps[1]?.inputs, [{ id: 'topic' }]);
});

void test('duplicate names are told apart; a pipeline name with no step becomes a step of no kind', () => {
  const d = normalizeDraft({ id: 'dup', pipeline: ['Check', 'check', 'ghost'], penguins: [{ name: 'Check', kind: 'verify' }, { name: 'check', kind: 'process' }] });
  assert.deepEqual(d.steps.map((s) => [s.name, s.kind]), [['check', 'verify'], ['check-2', 'process'], ['ghost', '']]);
});

void test('only a non-object is refused', () => {
  for (const bad of [null, 'text', 3, [1]]) {
    assert.throws(() => normalizeDraft(bad), (err: unknown) => err instanceof KowalskiError && err.code === 'KW_ERR_DRAFT_INVALID' && /JSON object/.test(err.message));
  }
  assert.deepEqual(normalizeDraft({}).steps, []);
});

void test('parse: a JSON object, normalised', () => {
  const r = parseDraft(JSON.stringify(LEGACY));
  assert.ok(r.ok);
  assert.equal(r.draft.id, 'rust-project-scaffolder-1-0');
});

void test('parse: a TOML document with [[steps]] (or [[penguins]]), [[edges]], [[triggers]] and nested [[steps.inputs]]', () => {
  const toml = `id = "Nightly Digest"
description = """two
lines"""
confirm_commands = false

[[penguins]]
name = "In"
kind = "ingest"
[[penguins.inputs]]
id = "topic"
type = "text"
required = true

[[penguins]]
name = "check"
kind = "verify"
verify_command = "echo {{input.topic}}"

[[edges]]
from = "check"
to = "In"
when = "Fail"
max_loops = 2

[[triggers]]
name = "nightly"
kind = "cron"
schedule = "0 6 * * *"
input = { topic = "news" }
`;
  const r = parseDraft(toml);
  assert.ok(r.ok, r.ok ? '' : r.error);
  assert.equal(r.draft.id, 'nightly-digest');
  assert.equal(r.draft.description, 'two\nlines');
  assert.equal(r.draft.confirm_commands, false);
  assert.deepEqual(r.draft.steps[0]?.inputs, [{ id: 'topic', type: 'text', required: true }]);
  // The loop back is written, and the line it leaves out is written in (always: "in" routes no failure).
  assert.deepEqual(r.draft.edges, [{ from: 'check', to: 'in', when: 'fail', max_loops: 2 }, { from: 'in', to: 'check', when: 'always' }]);
  assert.deepEqual(r.draft.triggers, [{ name: 'nightly', kind: 'cron', schedule: '0 6 * * *', input: { topic: 'news' } }]);
});

void test('parse: the last fenced block in prose that reads as a draft', () => {
  const first = JSON.stringify({ id: 'first', steps: [{ name: 'a', kind: 'ingest' }] });
  const text = `Here is my first idea:\n\n\`\`\`json\n${first}\n\`\`\`\n\nBetter:\n\n\`\`\`toml\nid = "second"\n[[steps]]\nname = "a"\nkind = "ingest"\n\`\`\`\n\nAnd some code:\n\n\`\`\`sh\necho hi\n\`\`\`\nDone.`;
  const r = parseDraft(text);
  assert.ok(r.ok, r.ok ? '' : r.error);
  assert.equal(r.draft.id, 'second');
});

void test('parse: garbage, an empty text, a JSON without steps, an oversized text are errors that say why', () => {
  const garbage = parseDraft('I would build a horde that reads the news. What do you think?');
  assert.equal(garbage.ok, false);
  assert.match(garbage.ok ? '' : garbage.error, /no draft found/);
  assert.equal(parseDraft('   ').ok, false);
  const noSteps = parseDraft('{"id": "x"}');
  assert.match(noSteps.ok ? '' : noSteps.error, /no steps/);
  const broken = parseDraft('```json\n{"id": "x", "steps": [\n```');
  assert.match(broken.ok ? '' : broken.error, /JSON does not parse/);
  const big = parseDraft(`{"id": "${'x'.repeat(1_000_001)}"}`);
  assert.match(big.ok ? '' : big.error, /KW_ERR_DRAFT_TOO_LARGE/);
});

void test('parse: a JSON object in prose without a fence', () => {
  const r = parseDraft(`Sure! Here is the draft: {"id": "Loose", "steps": [{"name": "a", "kind": "ingest"}]} Let me know.`);
  assert.ok(r.ok, r.ok ? '' : r.error);
  assert.equal(r.draft.id, 'loose');
});

void test('names are bounded: an id or step name is at most 64 characters', () => {
  const d = normalizeDraft({ id: 'a'.repeat(300), steps: [{ name: `${'b'.repeat(63)} c`, kind: 'ingest' }] });
  assert.equal(d.id, 'a'.repeat(64));
  assert.equal(d.steps[0]?.name, 'b'.repeat(63), 'and never ends in -');
});

void test('the example draft is normalised already', () => {
  assert.deepEqual(normalizeDraft(exampleDraft()), exampleDraft());
});

void test('bounds come before the work: 20,000 steps, edges or TOML tables are refused at once, by count', () => {
  const steps = Array.from({ length: 20_000 }, () => ({ name: 's', kind: 'process' }));
  let started = performance.now();
  assert.throws(() => normalizeDraft({ id: 'x', steps }), (err: unknown) => err instanceof KowalskiError && err.code === 'KW_ERR_DRAFT_TOO_LARGE' && /20000 steps \(steps\)/.test(err.message));
  // Read step by step (as before) this took minutes; counted, it is well under a second even on a busy machine.
  assert.ok(performance.now() - started < 500, `refused after ${performance.now() - started} ms`);
  assert.throws(() => normalizeDraft({ id: 'x', steps: [{ name: 'a' }], edges: Array.from({ length: 1001 }, () => ({ from: 'a', to: 'a' })) }), /1001 edges/);
  assert.throws(() => normalizeDraft({ id: 'x', penguins: steps }), /20000 steps \(penguins\)/);
  const toml = `id = "x"\n${'[[steps]]\nname = "s"\nkind = "process"\n'.repeat(20_000)}`;
  started = performance.now();
  const parsed = parseDraft(toml);
  assert.ok(performance.now() - started < 500, `parsed for ${performance.now() - started} ms`);
  assert.match(parsed.ok ? '' : parsed.error, /20000 TOML table headers.*KW_ERR_DRAFT_TOO_LARGE/);
  const justOver = parseDraft(`id = "x"\n${'[[steps]]\nkind = "process"\n'.repeat(201)}`);
  assert.match(justOver.ok ? '' : justOver.error, /201 steps \(steps\).*\[KW_ERR_DRAFT_TOO_LARGE\]/);
});

void test('names made unique in one pass: 200 steps of one name, and a written name that a suffix would take', () => {
  const d = normalizeDraft({ id: 'x', steps: [...Array.from({ length: 199 }, () => ({ name: 's', kind: 'process' })), { name: 's-3', kind: 'process' }] });
  const names = d.steps.map((s) => s.name);
  assert.equal(new Set(names).size, 200);
  assert.deepEqual(names.slice(0, 4), ['s', 's-2', 's-3', 's-4']);
  assert.equal(names[199], 's-3-2');
  const legacy = normalizeDraft({ id: 'x', pipeline: ['b', 'a', 'b', 'ghost'], penguins: [{ name: 'a', kind: 'ingest' }, { name: 'b', kind: 'process' }] });
  assert.deepEqual(legacy.steps.map((s) => s.name), ['b', 'a', 'ghost']);
});

void test('a draft nested deeper than 32 levels is refused before it is read, naming where', () => {
  let deep: unknown = 'x';
  for (let i = 0; i < 100_000; i++) deep = [deep];
  assert.throws(() => normalizeDraft({ id: 'x', steps: [{ name: 'a', kind: 'process', inputs: deep }] }),
    (err: unknown) => err instanceof KowalskiError && err.code === 'KW_ERR_DRAFT_TOO_LARGE' && /deeper than 32 levels \(at the draft\.steps\[0\]\.inputs(\[0\]){29}\)/.test(err.message));
  const parsed = parseDraft(`{"id": "x", "steps": [{"name": "a", "inputs": ${'['.repeat(40)}1${']'.repeat(40)}}]}`);
  assert.match(parsed.ok ? '' : parsed.error, /deeper than 32 levels.*\[KW_ERR_DRAFT_TOO_LARGE\]/);
  assert.ok(normalizeDraft({ id: 'x', steps: [{ name: 'a', kind: 'ingest', inputs: [{ id: 'q', options: ['a', 'b'] }] }] }).steps[0]?.inputs[0]?.options?.length === 2);
});
