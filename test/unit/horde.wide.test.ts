/**
 * A horde with very many problems loads in linear time and reports a bounded list: the
 * first problems of each file, each on its line, then one summary counting the rest.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_PROBLEMS, MAX_PROBLEMS_PER_FILE, countProblems, formatProblems, loadHorde } from '../../engine/horde/index.js';
import { writeHorde } from '../fixtures/hordes/temp-horde.js';
import { wideHorde } from '../../testkit/wide-horde.js';
import { cleanups } from '../../testkit/cleanup.js';

void test('a 1 MiB agents file with 28,000 problems validates in well under a second, listing the first 100 and counting the rest', async (t) => {
  const wide = wideHorde();
  const { dir, cleanup } = writeHorde(wide.files);
  cleanups(t)(cleanup);
  assert.ok(Buffer.byteLength(wide.files['agents/wide.md']!) > 1_000_000);

  const started = performance.now();
  const result = await loadHorde(dir);
  const ms = performance.now() - started;
  t.diagnostic(`loaded a ${Buffer.byteLength(wide.files['agents/wide.md']!)}-byte file with ${wide.problems} problems in ${ms.toFixed(0)} ms`);
  assert.ok(ms < 5000, `took ${ms.toFixed(0)} ms`);

  assert.equal(result.ok, false);
  if (result.ok) return;
  const problems = result.problems;
  assert.equal(problems.length, MAX_PROBLEMS_PER_FILE + 1);
  const file = `agents/${wide.step}.md`;
  assert.deepEqual(problems[0], {
    severity: 'error', code: 'KW_ERR_KEY_TYPE', file, key: 'timeout_secs', line: wide.timeoutLine,
    message: 'timeout_secs must be a whole number, not a string ("soon")',
  });
  problems.slice(1, MAX_PROBLEMS_PER_FILE).forEach((p, i) => {
    assert.equal(p.code, 'KW_ERR_KEY_VALUE');
    assert.equal(p.file, file);
    assert.equal(p.key, `context_paths[${i}]`, 'in the order written');
    assert.equal(p.line, wide.contextLine);
    assert.match(p.message, new RegExp(`^@step:gone-${i}-[a-z]+@ names step "gone-${i}-[a-z]+", which is not in pipeline$`));
  });
  const summary = problems[MAX_PROBLEMS_PER_FILE]!;
  const rest = wide.problems - MAX_PROBLEMS_PER_FILE;
  assert.equal(summary.code, 'KW_ERR_TOO_MANY_PROBLEMS');
  assert.equal(summary.severity, 'error');
  assert.equal(summary.file, file);
  assert.equal(summary.line, undefined);
  assert.deepEqual(summary.omitted, { errors: rest, warnings: 0 });
  assert.match(summary.message, new RegExp(`^${rest.toLocaleString('en-US')} more problems \\(${rest.toLocaleString('en-US')} errors\\) in this file are not listed`));
  assert.deepEqual(countProblems(problems), { errors: wide.problems, warnings: 0 }, 'the counts still cover every problem');
  assert.ok(formatProblems(problems).length < 20_000, 'the printed list is bounded too');
});

void test('a horde lists at most 500 problems in all: the files beyond are counted in one summary', async (t) => {
  const steps = Array.from({ length: 7 }, (_, i) => `s${i}`);
  const files: Record<string, string> = { 'horde.md': `---\nid = "many"\npipeline = [${steps.map((s) => `"${s}"`).join(', ')}]\n---\n` };
  for (const s of steps) {
    const refs = Array.from({ length: 150 }, (_, i) => `"@step:no-${i}@"`).join(',\n');
    files[`agents/${s}.md`] = `---\nname = "${s}"\nkind = "verify"\nverify_command = "true"\ncontext_paths = [\n${refs}\n]\n---\n`;
  }
  const { dir, cleanup } = writeHorde(files);
  cleanups(t)(cleanup);
  const result = await loadHorde(dir);
  assert.equal(result.ok, false);
  if (result.ok) return;
  const listed = result.problems.filter((p) => p.code !== 'KW_ERR_TOO_MANY_PROBLEMS');
  assert.equal(listed.length, MAX_PROBLEMS);
  const summaries = result.problems.filter((p) => p.code === 'KW_ERR_TOO_MANY_PROBLEMS');
  // s0…s4 show 100 each with a summary of their other 50; s5 and s6 show nothing and share one summary.
  assert.deepEqual(summaries.map((p) => [p.file, p.omitted]), [
    ...steps.slice(0, 5).map((s) => [`agents/${s}.md`, { errors: 50, warnings: 0 }]),
    ['.', { errors: 300, warnings: 0 }],
  ]);
  assert.match(summaries.at(-1)!.message, /^300 more problems \(300 errors\) in 2 more files are not listed/);
  assert.equal(countProblems(result.problems).errors, 7 * 150);
});

void test('a long value is clipped in its message, keeping the start and the end', async (t) => {
  const long = `@${'x'.repeat(20_000)}@`;
  const { dir, cleanup } = writeHorde({
    'horde.md': '---\nid = "long"\npipeline = ["a"]\n---\n',
    'agents/a.md': `---\nname = "a"\nkind = "verify"\nverify_command = "true"\ncontext_paths = ["${long}"]\n---\n`,
  });
  cleanups(t)(cleanup);
  const result = await loadHorde(dir);
  assert.equal(result.ok, false);
  if (result.ok) return;
  const [p] = result.problems;
  assert.ok(p !== undefined && p.message.length < 1100, `${p?.message.length} characters`);
  assert.match(p.message, /^@x+ … \(\d[\d,]* characters left out\) … x+@ is not a reference kowalski knows; use @artifact@ or @step:<name>@$/);
  assert.equal(p.line, 5);
});

void test('a line that looks like the start of a table header inside a string costs no time to pass over', async (t) => {
  // `[` followed by blanks and no `]`: a backtracking header pattern took seconds for a few thousand blanks.
  const { dir, cleanup } = writeHorde({
    'horde.md': '---\nid = "blank"\npipeline = ["a"]\n---\n',
    'agents/a.md': `---\nname = "a"\nkind = "verify"\nverify_command = "true"\nremark = """\n[${' '.repeat(500_000)}x\n"""\ncontext_paths = ["@step:q@"]\n---\n`,
  });
  cleanups(t)(cleanup);
  const started = performance.now();
  const result = await loadHorde(dir);
  const ms = performance.now() - started;
  t.diagnostic(`${ms.toFixed(0)} ms`);
  assert.ok(ms < 5000, `took ${ms.toFixed(0)} ms`);
  assert.equal(result.ok, false);
  if (!result.ok) assert.deepEqual(result.problems.map((p) => [p.key, p.line]), [['context_paths[0]', 8]]);
});
