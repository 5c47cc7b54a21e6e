import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { HordeDef, StepDef } from '../../core/index.js';
import { listHordes } from '../../engine/horde/index.js';
import { resolveCommand } from '../../steps/index.js';
import { parseSqlPlan } from '../../steps/sql-plan.js';
import { tablePlaceholders } from '../../steps/plan-tables.js';
import { tempRoot, writeFiles } from '../fixtures/hordes/temp-horde.js';
import { cleanups } from '../../testkit/cleanup.js';

const BUILTIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../hordes');

async function builtins(): Promise<Map<string, HordeDef>> {
  const catalog = await listHordes({ builtinDir: BUILTIN });
  const out = new Map<string, HordeDef>();
  for (const e of catalog.entries) {
    assert.ok(e.result.ok, `${e.dir}: ${JSON.stringify(e.result.ok ? [] : e.result.problems)}`);
    assert.deepEqual(e.result.warnings, [], `${e.id} loads without warnings`);
    out.set(e.id, e.result.horde);
  }
  return out;
}

/** Run a verify step's command as the engine does: resolved by the steps layer (placeholders expanded, `sh -c`), in its cwd. */
function run(horde: HordeDef | undefined, step: string, input: Record<string, string>, workdir: string): { status: number | null; stdout: string } {
  const def: StepDef | undefined = horde?.steps[step];
  assert.ok(horde && def, `step ${step}`);
  const spec = resolveCommand(def, { horde, input, workdir, runDir: workdir });
  const [program, ...args] = spec.argv;
  assert.ok(program !== undefined);
  const r = spawnSync(program, args, { cwd: spec.cwd, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout };
}

/** The step kinds each built-in uses: url-summarizer, spreadsheet-analyst, watchlist-digest, knowledge-compiler and memory-consolidation need a model. */
const KINDS: Record<string, string[]> = {
  'project-check': ['ingest', 'verify'],
  'retry-command': ['ingest', 'verify'],
  'url-summarizer': ['ingest', 'process', 'deliver'],
  'spreadsheet-analyst': ['ingest', 'table_profile', 'process', 'sql_batch', 'xlsx_report', 'deliver'],
  'spreadsheet-profile': ['ingest', 'table_profile', 'xlsx_report'],
  'watchlist-digest': ['ingest', 'mcp_call', 'sql_batch', 'xlsx_report', 'deliver', 'vault_note', 'send'],
  'knowledge-compiler': ['ingest', 'compile'],
  'memory-consolidation': ['agent'],
};

void test('the built-in hordes load cleanly, each step of a kind listed for it', async () => {
  const all = await builtins();
  assert.deepEqual([...all.keys()].sort(), Object.keys(KINDS).sort());
  for (const horde of all.values()) {
    assert.equal(horde.origin, 'builtin');
    for (const step of Object.values(horde.steps)) assert.ok(KINDS[horde.id]!.includes(step.kind), `${horde.id}/${step.name}`);
    assert.match(horde.body, /^# /m, 'documented in its body');
    for (const trigger of horde.triggers) assert.equal(trigger.enabled, false, `${horde.id}/${trigger.name} ships switched off`);
  }
});

void test('watchlist-digest: ingest → prices (off unless prices_tool is given) → compute (the horde\'s own queries) → report → digest → file (into the vault) → send (off unless send_via is given), its weekday trigger switched off', async () => {
  const horde = (await builtins()).get('watchlist-digest');
  assert.ok(horde);
  assert.deepEqual(horde.pipeline, ['ingest', 'prices', 'compute', 'report', 'digest', 'file', 'send']);
  assert.deepEqual(horde.inputs.map((i) => [i.id, i.type, i.required]), [
    ['watchlist', 'path', true], ['prices', 'path', false], ['prices_tool', 'text', false], ['prices_args', 'text', false], ['send_via', 'text', false], ['send_to', 'text', false],
  ]);
  assert.deepEqual(horde.steps.prices?.call, { tool: '{{input.prices_tool}}', arguments: '{{input.prices_args}}' });
  assert.equal(horde.steps.prices?.output, 'inputs/prices/prices.json');
  assert.deepEqual(horde.edges.map((e) => `${e.from}->${e.to}:${e.when}`), ['ingest->prices:pass', 'prices->compute:pass', 'compute->report:pass', 'report->digest:pass', 'digest->file:pass', 'file->send:pass']);
  assert.deepEqual(horde.steps.file?.note, { path: 'digests/watchlist-{{date}}.md', mode: 'append' });
  assert.deepEqual(horde.steps.send?.send, { adapter: '{{input.send_via}}', to: '{{input.send_to}}', subject: 'Watchlist digest {{date}}' });
  assert.deepEqual(horde.steps.send?.context, ['@step:digest@']);
  assert.deepEqual(horde.steps.file?.context, ['@step:digest@']);
  assert.deepEqual(horde.triggers.map((t) => [t.name, t.kind, t.schedule, t.enabled]), [['weekday-mornings', 'cron', '30 7 * * 1-5', false]]);
  assert.deepEqual(Object.keys(horde.triggers[0]!.input).sort(), ['prices', 'watchlist']);
  // The plan is fixed, in the horde: no model writes the SQL.
  const plan = parseSqlPlan(fs.readFileSync(path.join(horde.dir, horde.steps.compute!.promptFile!), 'utf8'));
  assert.deepEqual(plan.queries.map((q) => q.question), ['Positions', 'Moves past your thresholds', 'Totals']);
  for (const q of plan.queries) assert.deepEqual(tablePlaceholders(q.sql).sort(), ['prices', 'watchlist']);
  const prompt = fs.readFileSync(path.join(horde.dir, horde.steps.digest!.promptFile!), 'utf8');
  assert.match(prompt, /Write exactly this shape/);
});

void test('spreadsheet-analyst: ingest → profile → plan → run → report → deliver, run failing back to plan at most twice', async () => {
  const horde = (await builtins()).get('spreadsheet-analyst');
  assert.ok(horde);
  assert.deepEqual(horde.pipeline, ['ingest', 'profile', 'plan', 'run', 'report', 'deliver']);
  assert.deepEqual(horde.inputs.map((i) => [i.id, i.type, i.required]), [['data', 'path', true], ['questions', 'textarea', true]]);
  const back = horde.edges.filter((e) => e.back);
  assert.deepEqual(back.map((e) => [e.from, e.to, e.when, e.maxLoops]), [['run', 'plan', 'fail', 2]]);
  // The line is written on `pass`: a failed data step stops the run instead of moving on (1.x's straight line would).
  assert.deepEqual(horde.edges.filter((e) => !e.back).map((e) => `${e.from}->${e.to}:${e.when}`), [
    'ingest->profile:pass', 'profile->plan:pass', 'plan->run:pass', 'run->report:pass', 'report->deliver:pass',
  ]);
  assert.deepEqual(horde.steps.plan?.context, ['@step:profile@', '@artifact@']);
  assert.equal(horde.steps.report?.output, 'report.xlsx');
  for (const step of ['plan', 'deliver']) {
    const prompt = fs.readFileSync(path.join(horde.dir, horde.steps[step]!.promptFile!), 'utf8');
    assert.match(prompt, /Write exactly this shape/);
  }
  const profile = (await builtins()).get('spreadsheet-profile');
  assert.deepEqual(profile?.pipeline, ['ingest', 'profile', 'report']);
  assert.deepEqual(profile?.inputs.map((i) => i.id), ['data']);
});

void test('knowledge-compiler: ingest → compile, which reads the files through the run\'s file tools and cites them', async () => {
  const horde = (await builtins()).get('knowledge-compiler');
  assert.ok(horde);
  assert.deepEqual(horde.pipeline, ['ingest', 'compile']);
  assert.deepEqual(horde.inputs.map((i) => [i.id, i.type, i.required]), [['notes', 'path', true], ['topic', 'text', false]]);
  assert.deepEqual(horde.triggers, []);
  const compile = horde.steps.compile!;
  assert.deepEqual([compile.tools, compile.context, compile.output], [['fs_tool'], ['@step:ingest@'], 'compiled.md']);
  assert.equal(horde.deliveryRootRel, 'compiled.md');
  const prompt = fs.readFileSync(path.join(horde.dir, compile.promptFile!), 'utf8');
  assert.match(prompt, /Write exactly this shape/);
  assert.match(prompt, /^## Sources$/m);
});

void test('memory-consolidation: one agent step of the built-in archivist, its window an input, its nightly trigger switched off', async () => {
  const horde = (await builtins()).get('memory-consolidation');
  assert.ok(horde);
  assert.deepEqual(horde.pipeline, ['consolidate']);
  const step = horde.steps.consolidate!;
  assert.deepEqual([step.kind, step.agent, step.output, step.tools], ['agent', 'archivist', 'consolidate.md', []]);
  assert.deepEqual(step.normalize?.sections, ['Kept', 'Already kept', 'Read']);
  assert.equal(horde.deliveryRootRel, 'consolidate.md');
  assert.deepEqual(horde.inputs.map((i) => [i.id, i.type, i.required, i.default]), [['since_hours', 'choice', false, '24']]);
  assert.deepEqual(horde.triggers.map((t) => [t.name, t.kind, t.schedule, t.enabled, t.input]), [['nightly', 'cron', '30 3 * * *', false, { since_hours: '24' }]]);
  const prompt = fs.readFileSync(path.join(horde.dir, step.promptFile!), 'utf8');
  assert.match(prompt, /recent_turns/);
});

void test('url-summarizer: fetch → notes → summary, prompts written out with the exact output shape', async () => {
  const horde = (await builtins()).get('url-summarizer');
  assert.ok(horde);
  assert.deepEqual(horde.pipeline, ['fetch', 'notes', 'summary']);
  assert.deepEqual(horde.inputs.map((i) => [i.id, i.type, i.required]), [['url', 'url', true], ['question', 'text', false]]);
  assert.deepEqual(horde.steps.summary?.normalize?.sections, ['Answer', 'Key points']);
  for (const step of ['notes', 'summary']) {
    const prompt = fs.readFileSync(path.join(horde.dir, horde.steps[step]!.promptFile!), 'utf8');
    assert.match(prompt, /Write exactly this shape/);
  }
});

void test('project-check: intake forks into two parallel checks joined by summary on pass', async () => {
  const horde = (await builtins()).get('project-check');
  assert.ok(horde);
  assert.deepEqual(horde.inputs.map((i) => [i.id, i.type, i.required]), [['project', 'folder', true]]);
  assert.deepEqual(horde.edges.map((e) => `${e.from}->${e.to}:${e.when}`), [
    'intake->tests:pass', 'intake->lint:pass', 'tests->summary:pass', 'lint->summary:pass',
  ]);
  assert.ok(horde.edges.every((e) => !e.back && !e.implicit));
  for (const name of ['tests', 'lint', 'summary']) assert.equal(horde.steps[name]?.verifyCwd, '{{input.project}}');
});

void test('project-check commands do what its body says in a real folder', async (t) => {
  const horde = (await builtins()).get('project-check');
  const { root, cleanup } = tempRoot();
  cleanups(t)(cleanup);
  const project = path.join(root, 'my app');
  writeFiles(project, { 'package.json': JSON.stringify({ name: 'x', version: '1.0.0', scripts: { test: 'exit 3' } }), 'index.js': '' });
  const input = { project };

  const summary = run(horde, 'summary', input, root);
  assert.equal(summary.status, 0);
  assert.match(summary.stdout, /not a git repository/);
  assert.match(summary.stdout, /package\.json/);
  assert.equal(run(horde, 'lint', input, root).status, 0, 'no lint script passes');
  assert.notEqual(run(horde, 'tests', input, root).status, 0, 'a failing test script fails the step');
});

void test('retry-command: attempt → backoff on fail, back to attempt on pass at most 3 times', async () => {
  const horde = (await builtins()).get('retry-command');
  assert.ok(horde);
  assert.deepEqual(horde.inputs.map((i) => [i.id, i.type, i.required, i.default]), [
    ['command', 'text', true, undefined], ['cwd', 'folder', true, undefined], ['delay_secs', 'text', false, '5'],
  ]);
  assert.deepEqual(horde.edges, [
    { from: 'intake', to: 'attempt', when: 'pass', back: false, implicit: false },
    { from: 'attempt', to: 'backoff', when: 'fail', back: false, implicit: false },
    { from: 'backoff', to: 'attempt', when: 'pass', maxLoops: 3, back: true, implicit: false },
  ]);
  // attempt passing has no edge out: the run ends there successfully.
  assert.equal(horde.edges.filter((e) => e.from === 'attempt' && e.when !== 'fail').length, 0);
});

void test('retry-command commands: the command line runs whole in its folder; backoff sleeps', async (t) => {
  const horde = (await builtins()).get('retry-command');
  const { root, cleanup } = tempRoot();
  cleanups(t)(cleanup);
  const ok = run(horde, 'attempt', { command: 'test -f marker && echo "found it"', cwd: root, delay_secs: '0' }, root);
  assert.equal(ok.status, 1, 'no marker yet');
  writeFiles(root, { marker: '' });
  const again = run(horde, 'attempt', { command: 'test -f marker && echo "found it"', cwd: root, delay_secs: '0' }, root);
  assert.equal(again.status, 0);
  assert.equal(again.stdout, 'found it\n');
  assert.equal(run(horde, 'backoff', { command: '', cwd: root, delay_secs: '0' }, root).status, 0);
});
