/** `kowalski run` without approvals: exit codes, --json, progress lines, form inputs, bad references; `resume`. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { BUILTIN_HORDES, brief, cli, cliSandbox, linesOf, outputOf, stdoutJson, verifyStep, writeHorde } from '../../testkit/cli.js';
import type { RunJson } from '../../testkit/cli.js';

describe('kowalski run', { concurrency: true }, () => {
  it('runs a straight line of verify steps (a user horde, by id): exit 0 and one JSON object with the run and its steps', async (t) => {
    const { root, home } = cliSandbox(t);
    const ran = path.join(root, 'ran.log');
    writeHorde(path.join(home, 'hordes', 'line'), 'id = "line"\npipeline = ["one", "two", "three"]\nconfirm_commands = false', {
      one: verifyStep(`echo one >> ${ran}`),
      two: verifyStep(`echo two >> ${ran}`),
      three: verifyStep(`echo three >> ${ran}`),
    });
    const r = await cli(home, ['run', 'line', '--json']);
    assert.equal(r.code, 0, outputOf(r));
    const run = stdoutJson<RunJson>(r);
    assert.match(run.runId, /^r[0-9a-z]+$/);
    assert.equal(run.state, 'succeeded');
    assert.equal(run.error, null);
    assert.equal(run.pendingApproval, null);
    assert.deepEqual(brief(run.steps), [
      { name: 'one', state: 'passed', attempt: 1, outcome: 'pass' },
      { name: 'two', state: 'passed', attempt: 1, outcome: 'pass' },
      { name: 'three', state: 'passed', attempt: 1, outcome: 'pass' },
    ]);
    assert.deepEqual(linesOf(ran), ['one', 'two', 'three'], 'each command ran once, in pipeline order');
    assert.ok(fs.existsSync(path.join(home, 'runs', run.runId)), 'the run has its folder in the data directory');
  });

  it('exits 1 when a verify command fails with no fail edge, naming the step; later steps do not run; plain progress lines on stderr', async (t) => {
    const { root, home } = cliSandbox(t);
    const ran = path.join(root, 'ran.log');
    const PASS_LINE = '\n[[edges]]\nfrom = "build"\nto = "tests"\nwhen = "pass"\n[[edges]]\nfrom = "tests"\nto = "ship"\nwhen = "pass"';
    const dir = writeHorde(path.join(root, 'failing'), `id = "failing"\npipeline = ["build", "tests", "ship"]\nconfirm_commands = false${PASS_LINE}`, {
      build: verifyStep(`echo build >> ${ran}`),
      tests: verifyStep(`echo tests >> ${ran}; exit 1`),
      ship: verifyStep(`echo ship >> ${ran}`),
    });
    const r = await cli(home, ['run', dir]);
    assert.equal(r.code, 1, outputOf(r));
    const m = /^run (r[0-9a-z]+) failed: step "tests" failed .*\[KW_ERR_NO_ROUTE\]\ndelivery: \/.+\/build\.md\noutputs: +\/.+\/output\n$/.exec(r.stdout);
    assert.ok(m !== null, outputOf(r));
    const runId = m[1]!;
    assert.deepEqual(linesOf(ran), ['build', 'tests'], 'ship never ran');

    // stdout and stderr are pipes here: one plain line per event, no terminal escapes
    assert.doesNotMatch(r.stderr, /\x1b\[/);
    const T = String.raw`\[\d\d:\d\d:\d\d\]`;
    const expected = [
      `${T} run ${runId} created \\(failing\\)`,
      `${T} build #1 started`,
      `${T} build #1 passed in \\d+\\.\\d\\ds \\(exit 0\\)`,
      `${T} tests #1 started`,
      `${T} tests #1 failed in \\d+\\.\\d\\ds \\(exit 1\\)`,
      `${T} run failed`,
    ];
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines.length, expected.length, r.stderr);
    expected.forEach((re, i) => assert.match(lines[i]!, new RegExp(`^${re}$`)));

    const show = await cli(home, ['show', runId, '--json']);
    assert.equal(show.code, 0, outputOf(show));
    const run = stdoutJson<RunJson>(show);
    assert.equal(run.runId, runId);
    assert.equal(run.state, 'failed');
    assert.equal(run.error?.code, 'KW_ERR_NO_ROUTE');
    assert.match(run.error.message, /"tests"/);
    assert.equal(run.pendingApproval, null);
    assert.deepEqual(brief(run.steps), [
      { name: 'build', state: 'passed', attempt: 1, outcome: 'pass' },
      { name: 'tests', state: 'failed', attempt: 1, outcome: 'fail' },
      { name: 'ship', state: 'pending', attempt: 0, outcome: null },
    ]);
  });

  it('exits 1 when a straight line (no [[edges]]) went on past a failed verify, as in 1.x: the later steps ran, the error names the step', async (t) => {
    const { root, home } = cliSandbox(t);
    const ran = path.join(root, 'ran.log');
    const dir = writeHorde(path.join(root, 'line'), 'id = "line"\npipeline = ["build", "tests", "ship"]\nconfirm_commands = false', {
      build: verifyStep(`echo build >> ${ran}`),
      tests: verifyStep(`echo tests >> ${ran}; exit 1`),
      ship: verifyStep(`echo ship >> ${ran}`),
    });
    const r = await cli(home, ['run', dir, '--json']);
    assert.equal(r.code, 1, outputOf(r));
    assert.deepEqual(linesOf(ran), ['build', 'tests', 'ship'], 'ship ran after the failed tests');
    const run = stdoutJson<RunJson>(r);
    assert.equal(run.state, 'failed');
    assert.equal(run.error?.code, 'KW_ERR_RAN_PAST_FAILURE');
    assert.match(run.error.message, /^step "tests" \(exit 1\) failed; the run went on to the end/);
    assert.deepEqual(brief(run.steps).map((s) => `${s.name}:${s.state}`), ['build:passed', 'tests:failed', 'ship:passed']);
  });

  it('exits 2 for a horde that does not exist, naming where it looked', async (t) => {
    const { root, home } = cliSandbox(t);
    const missing = path.join(root, 'no-such-folder');
    const r = await cli(home, ['run', missing]);
    assert.equal(r.code, 2, outputOf(r));
    assert.match(r.stderr, /\[KW_ERR_HORDE_NOT_FOUND\]/);
    assert.ok(r.stderr.includes(BUILTIN_HORDES), `names the built-in hordes folder:\n${r.stderr}`);
    assert.ok(r.stderr.includes(path.join(home, 'hordes')), `names the user hordes folder:\n${r.stderr}`);
    assert.ok(r.stderr.includes(missing), `names the folder it tried:\n${r.stderr}`);
    assert.equal(r.stdout, '');
  });
});

describe('kowalski run --input', { concurrency: true }, () => {
  /** A form with a required `who` and an optional `mood`; `say` prints each answer on its own line. */
  function writeForm(root: string, out: string): string {
    return writeHorde(path.join(root, 'form'), 'id = "form"\npipeline = ["intake", "say"]\nconfirm_commands = false', {
      intake: `kind = "ingest"

[[inputs]]
id = "who"
required = true

[[inputs]]
id = "mood"
default = "fine"`,
      say: verifyStep(`printf '%s\\n' {{input.who}} {{input.mood}} >> ${out}`),
    });
  }

  it('exits 2 naming a missing required input and an unknown one; nothing runs', async (t) => {
    const { root, home } = cliSandbox(t);
    const out = path.join(root, 'out.log');
    const r = await cli(home, ['run', writeForm(root, out), '--input', 'mood=glad', '--input', 'colour=red']);
    assert.equal(r.code, 2, outputOf(r));
    assert.match(r.stderr, /\[KW_ERR_INPUT_INVALID\]\n$/);
    assert.match(r.stderr, /"who" \(who\) is required/);
    assert.match(r.stderr, /"colour" is not an input of form \(it has: who, mood\)/);
    assert.deepEqual(linesOf(out), []);
    assert.deepEqual(fs.existsSync(path.join(home, 'runs')) ? fs.readdirSync(path.join(home, 'runs')) : [], [], 'no run was created');
  });

  it('exits 2 for an --input without "="', async (t) => {
    const { root, home } = cliSandbox(t);
    const out = path.join(root, 'out.log');
    const r = await cli(home, ['run', writeForm(root, out), '--input', 'who']);
    assert.equal(r.code, 2, outputOf(r));
    assert.match(r.stderr, /--input takes key=value, not "who" \[KW_ERR_USAGE\]/);
    assert.deepEqual(linesOf(out), []);
  });

  it('puts an answer into verify_command shell-quoted: a space and a ";" do not start a second command', async (t) => {
    const { root, home } = cliSandbox(t);
    const out = path.join(root, 'out.log');
    const pwned = path.join(root, 'pwned');
    const answer = `two words; touch ${pwned}`;
    const r = await cli(home, ['run', writeForm(root, out), '--input', `who=${answer}`, '--json']);
    assert.equal(r.code, 0, outputOf(r));
    const run = stdoutJson<RunJson>(r);
    assert.deepEqual(run.input, { who: answer, mood: 'fine' }, 'the answers, with the default filled in');
    assert.deepEqual(linesOf(out), [answer, 'fine'], 'the answer reached the command as one word');
    assert.equal(fs.existsSync(pwned), false, 'the text after ";" did not run');
  });
});

describe('kowalski resume', () => {
  it('exits 0 when nothing is unfinished', async (t) => {
    const { home } = cliSandbox(t);
    const json = await cli(home, ['resume', '--json']);
    assert.equal(json.code, 0, outputOf(json));
    const body = stdoutJson<{ resumed: string[]; runs: unknown[] }>(json);
    assert.deepEqual(body.resumed, []);
    assert.deepEqual(body.runs, []);
  });
});
