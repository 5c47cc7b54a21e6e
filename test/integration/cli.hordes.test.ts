/** `kowalski validate` and `kowalski hordes`, run as real processes against real horde folders. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BUILTIN_HORDES, cli, cliSandbox, outputOf, stdoutJson, verifyStep, writeHorde } from '../../testkit/cli.js';

interface Problem {
  severity: 'error' | 'warning';
  code: string;
  file: string;
  line?: number;
  key?: string;
  message: string;
}

/** A horde with problems in three files: a step without a file, an unbounded back edge, an unknown kind, an output path leaving the workdir. */
function writeBrokenHorde(dir: string): string {
  writeHorde(dir, `
id = "broken"
pipeline = ["a", "b", "c"]

[[edges]]
from = "c"
to = "a"
`, {
    a: 'kind = "frobnicate"',
    b: verifyStep('true', 'output = "../out.md"'),
    // c: no agents/c.md at all
  });
  return dir;
}

const PROBLEM_LINE = /^(horde\.md|agents\/[\w.-]+\.md):\d+: \S+: .+ \[KW_(ERR|WARN)_[A-Z_]+\]$/;

describe('kowalski validate', { concurrency: true }, () => {
  it('exits 0 for the built-in hordes project-check and retry-command', async (t) => {
    const { home } = cliSandbox(t);
    const [check, retry] = await Promise.all([
      cli(home, ['validate', path.join(BUILTIN_HORDES, 'project-check')]),
      cli(home, ['validate', path.join(BUILTIN_HORDES, 'retry-command'), '--json']),
    ]);
    assert.equal(check.code, 0, outputOf(check));
    assert.match(check.stdout, /valid horde "project-check" \(4 steps\)/);
    assert.equal(retry.code, 0, outputOf(retry));
    const json = stdoutJson<{ valid: boolean; id: string; problems: Problem[] }>(retry);
    assert.equal(json.valid, true);
    assert.equal(json.id, 'retry-command');
    assert.deepEqual(json.problems, []);
  });

  it('exits 2 for an invalid horde and prints every problem as file:line: key: message [CODE]', async (t) => {
    const { root, home } = cliSandbox(t);
    const dir = writeBrokenHorde(path.join(root, 'broken'));
    const [text, json] = await Promise.all([cli(home, ['validate', dir]), cli(home, ['validate', dir, '--json'])]);

    assert.equal(text.code, 2, outputOf(text));
    const lines = text.stdout.trimEnd().split('\n');
    const summary = lines.pop();
    const problemLines = lines;
    for (const line of problemLines) assert.match(line, PROBLEM_LINE);
    // one problem in each of the three places, each on the line it is written on
    const expected: [RegExp, string][] = [
      [/^horde\.md:3: pipeline\[2\]: .*"c".* \[KW_ERR_STEP_FILE_MISSING\]$/, 'the step without a file'],
      [/^horde\.md:5: edges\[0\]\.max_loops: .* \[KW_ERR_EDGE_LOOP_UNBOUNDED\]$/, 'the back edge without max_loops'],
      [/^agents\/a\.md:3: kind: .*"frobnicate".* \[KW_ERR_STEP_KIND_UNKNOWN\]$/, 'the unknown kind'],
      [/^agents\/b\.md:5: output: .*"\.\.\/out\.md".* \[KW_ERR_PATH_ESCAPES\]$/, 'the output outside the workdir'],
    ];
    for (const [re, what] of expected) assert.ok(problemLines.some((l) => re.test(l)), `${what} is reported: ${re}\n${text.stdout}`);
    assert.equal(summary, `${dir}: ${problemLines.length} error(s)`);

    assert.equal(json.code, 2, outputOf(json));
    const body = stdoutJson<{ valid: boolean; problems: Problem[] }>(json);
    assert.equal(body.valid, false);
    // the text and the JSON list the same problems, every one of them
    assert.deepEqual(
      body.problems.map((p) => `${p.file}:${p.line}: ${p.key}: ${p.message} [${p.code}]`).sort(),
      [...problemLines].sort(),
    );
    assert.ok(body.problems.every((p) => p.severity === 'error'));
  });

  it('exits 0 for a valid horde and names it; its warnings are printed', async (t) => {
    const { root, home } = cliSandbox(t);
    const dir = writeHorde(path.join(root, 'ok'), `
id = "ok-horde"
pipeline = ["one", "two"]

[[edges]]
from = "one"
to = "two"
when = "pass"
max_loops = 3
`, { one: verifyStep('true'), two: verifyStep('true') });
    const r = await cli(home, ['validate', dir]);
    assert.equal(r.code, 0, outputOf(r));
    assert.equal(r.stdout.split('\n').length, 3, r.stdout);
    assert.match(r.stdout, /^horde\.md:9: edges\[0\]\.max_loops: .+ \[KW_WARN_MAX_LOOPS_IGNORED\]\n/);
    assert.ok(r.stdout.endsWith(`\n${dir}: valid horde "ok-horde" (2 steps)\n`), r.stdout);
  });

  it('exits 2 for a folder without a horde.md', async (t) => {
    const { root, home } = cliSandbox(t);
    const dir = path.join(root, 'empty');
    fs.mkdirSync(dir);
    const r = await cli(home, ['validate', dir, '--json']);
    assert.equal(r.code, 2, outputOf(r));
    const body = stdoutJson<{ valid: boolean; problems: Problem[] }>(r);
    assert.equal(body.valid, false);
    assert.ok(body.problems.length > 0, 'it says what is wrong');
  });
});

describe('kowalski hordes', { concurrency: true }, () => {
  it('lists the built-in hordes and the user hordes in $KOWALSKI_HOME/hordes; an invalid one is shown as INVALID with its problems', async (t) => {
    const { home } = cliSandbox(t);
    writeHorde(path.join(home, 'hordes', 'mine'), 'id = "mine"\ndescription = "My own check."\npipeline = ["one", "two"]', { one: verifyStep('true'), two: verifyStep('true') });
    writeBrokenHorde(path.join(home, 'hordes', 'broken'));

    const [text, json] = await Promise.all([cli(home, ['hordes']), cli(home, ['hordes', '--json'])]);
    assert.equal(text.code, 0, outputOf(text));
    assert.match(text.stdout, /^project-check\s+builtin\s+intake → tests → lint → summary$/m);
    assert.match(text.stdout, /^retry-command\s+builtin\s+intake → attempt → backoff$/m);
    assert.match(text.stdout, /^mine\s+user\s+one → two\n\s+My own check\.$/m);
    const brokenDir = path.join(home, 'hordes', 'broken');
    assert.ok(text.stdout.includes(`broken                   user     INVALID (${brokenDir}):\n`), text.stdout);
    assert.match(text.stdout, /^\s+agents\/a\.md:3: kind: .* \[KW_ERR_STEP_KIND_UNKNOWN\]$/m);
    assert.match(text.stdout, /^\s+horde\.md:3: pipeline\[2\]: .* \[KW_ERR_STEP_FILE_MISSING\]$/m);

    assert.equal(json.code, 0, outputOf(json));
    const entries = stdoutJson<{ id: string; origin: string; valid: boolean; pipeline?: string[]; problems?: Problem[] }[]>(json);
    const byId = new Map(entries.map((e) => [e.id, e]));
    assert.deepEqual([...byId.keys()].sort(), ['broken', 'knowledge-compiler', 'memory-consolidation', 'mine', 'project-check', 'retry-command', 'spreadsheet-analyst', 'spreadsheet-profile', 'url-summarizer', 'watchlist-digest']);
    assert.equal(byId.get('project-check')?.origin, 'builtin');
    assert.equal(byId.get('mine')?.origin, 'user');
    assert.deepEqual(byId.get('mine')?.pipeline, ['one', 'two']);
    assert.equal(byId.get('broken')?.valid, false);
    assert.ok(byId.get('broken')?.problems?.some((p) => p.code === 'KW_ERR_STEP_KIND_UNKNOWN'));
  });

  it('refuses to run an invalid user horde by id: exit 2 with its problems', async (t) => {
    const { home } = cliSandbox(t);
    writeBrokenHorde(path.join(home, 'hordes', 'broken'));
    const r = await cli(home, ['run', 'broken']);
    assert.equal(r.code, 2, outputOf(r));
    assert.match(r.stderr, /\[KW_ERR_HORDE_INVALID\]/);
    assert.match(r.stderr, /agents\/a\.md:3: kind: /);
  });
});
