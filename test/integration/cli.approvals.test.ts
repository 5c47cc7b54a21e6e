/** Runs that park for the operator: `run` (exit 3), `show`, `runs`, `approve`, `deny`, `cancel`, as real processes. */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { approveLine, brief, cli, cliSandbox, linesOf, outputOf, stdoutJson, verifyStep, writeHorde } from '../../testkit/cli.js';
import type { RunJson } from '../../testkit/cli.js';

/** Two verify steps behind approvals (confirm_commands is on by default), each appending its name to `ran`. */
function writeGated(dir: string, ran: string, id = 'gated'): string {
  return writeHorde(dir, `id = "${id}"\npipeline = ["a", "b"]`, { a: verifyStep(`echo a >> ${ran}`), b: verifyStep(`echo b >> ${ran}`) });
}

const T = String.raw`\[\d\d:\d\d:\d\d\]`;

describe('approvals from the CLI', { concurrency: true }, () => {
  it('parks before each verify step (exit 3) showing argv, cwd, hash and the approve line; approve runs it and continues; runs filters; cancel', async (t) => {
    const { root, home } = cliSandbox(t);
    const ran = path.join(root, 'ran.log');
    const dir = writeGated(path.join(root, 'gated'), ran);

    const parked = await cli(home, ['run', dir]);
    assert.equal(parked.code, 3, outputOf(parked));
    const { runId, step, args } = approveLine(parked.stdout);
    assert.equal(step, 'a');
    const cwd = path.join(home, 'runs', runId, 'output');
    const argv = ['/bin/sh', '-c', `echo a >> ${ran}`];
    assert.match(parked.stdout, /^step "a" wants to run a command:$/m);
    assert.ok(parked.stdout.includes(`\n  argv: ${JSON.stringify(argv)}\n`), parked.stdout);
    assert.ok(parked.stdout.includes(`\n  cwd:  ${cwd}\n`), parked.stdout);
    const hash = /^ {2}hash: ([0-9a-f]{64})$/m.exec(parked.stdout)?.[1];
    assert.ok(hash !== undefined, parked.stdout);
    assert.ok(parked.stdout.includes(`\napprove: kowalski approve ${runId} --step a\n`), parked.stdout);
    assert.ok(parked.stdout.includes(`\ndeny:    kowalski deny ${runId} --step a --reason "…"`), parked.stdout);
    assert.match(parked.stderr, new RegExp(`^${T} a waits for approval$`, 'm'));
    assert.deepEqual(linesOf(ran), [], 'nothing ran before the approval');

    const show = await cli(home, ['show', runId, '--json']);
    assert.equal(show.code, 0, outputOf(show));
    const view = stdoutJson<RunJson>(show);
    assert.equal(view.runId, runId);
    assert.equal(view.state, 'awaiting_input');
    assert.deepEqual(brief(view.steps), [
      { name: 'a', state: 'awaiting_approval', attempt: 0, outcome: null },
      { name: 'b', state: 'pending', attempt: 0, outcome: null },
    ]);
    assert.ok(view.pendingApproval !== null);
    assert.equal(view.pendingApproval.step, 'a');
    assert.deepEqual(view.pendingApproval.command.argv, argv);
    assert.equal(view.pendingApproval.command.cwd, cwd);
    assert.equal(view.pendingApproval.hash, hash, 'show gives the hash run printed');
    assert.equal(view.pendingApproval.approve, `kowalski approve ${runId} --step a`);

    // the printed line, as typed: runs "a", then parks at "b"
    const first = await cli(home, args);
    assert.equal(first.code, 3, outputOf(first));
    assert.deepEqual(linesOf(ran), ['a']);
    assert.equal(approveLine(first.stdout).step, 'b');
    assert.ok(first.stdout.includes(`  argv: ${JSON.stringify(['/bin/sh', '-c', `echo b >> ${ran}`])}\n`), first.stdout);
    const progress = first.stderr.trimEnd().split('\n');
    for (const re of [`a approved by operator`, `a #1 started`, `a #1 passed in \\d+\\.\\d\\ds \\(exit 0\\)`, `b waits for approval`]) {
      assert.ok(progress.some((l) => new RegExp(`^${T} ${re}$`).test(l)), `a "${re}" line:\n${first.stderr}`);
    }

    // without --step: the only waiting step
    const second = await cli(home, ['approve', runId, '--json']);
    assert.equal(second.code, 0, outputOf(second));
    const done = stdoutJson<RunJson>(second);
    assert.equal(done.state, 'succeeded');
    assert.equal(done.pendingApproval, null);
    assert.deepEqual(brief(done.steps), [
      { name: 'a', state: 'passed', attempt: 1, outcome: 'pass' },
      { name: 'b', state: 'passed', attempt: 1, outcome: 'pass' },
    ]);
    assert.deepEqual(linesOf(ran), ['a', 'b'], 'each command ran exactly once');

    // a second run of the same horde parks too: now one run is parked and one has succeeded
    const again = await cli(home, ['run', dir]);
    assert.equal(again.code, 3, outputOf(again));
    const parkedId = approveLine(again.stdout).runId;
    assert.notEqual(parkedId, runId);

    const [filtered, all] = await Promise.all([cli(home, ['runs', '--status', 'awaiting_input']), cli(home, ['runs', '--json'])]);
    assert.equal(filtered.code, 0, outputOf(filtered));
    const rows = filtered.stdout.trimEnd().split('\n');
    assert.equal(rows.length, 1, `only the parked run:\n${filtered.stdout}`);
    assert.match(rows[0]!, new RegExp(`^${parkedId}\\s+awaiting_input\\s+gated\\s+cli\\s`));
    assert.equal(all.code, 0, outputOf(all));
    const every = stdoutJson<{ id: string; state: string; hordeId: string }[]>(all);
    assert.ok(Array.isArray(every));
    assert.deepEqual(every.map((r) => [r.id, r.state, r.hordeId]), [[parkedId, 'awaiting_input', 'gated'], [runId, 'succeeded', 'gated']], 'newest first');

    // cancel the parked one: exit 0; a second cancel is refused with exit 2
    const cancelled = await cli(home, ['cancel', parkedId]);
    assert.equal(cancelled.code, 0, outputOf(cancelled));
    assert.equal(cancelled.stdout, `run ${parkedId} cancelled\n`);
    const [twice, shown] = await Promise.all([cli(home, ['cancel', parkedId]), cli(home, ['show', parkedId, '--json'])]);
    assert.equal(twice.code, 2, outputOf(twice));
    assert.match(twice.stderr, new RegExp(`run ${parkedId} has already cancelled \\[KW_ERR_RUN_FINISHED\\]`));
    assert.equal(shown.code, 0, outputOf(shown));
    const cancelledView = stdoutJson<RunJson>(shown);
    assert.equal(cancelledView.state, 'cancelled');
    assert.equal(cancelledView.pendingApproval, null);
    assert.deepEqual(brief(cancelledView.steps), [
      { name: 'a', state: 'pending', attempt: 0, outcome: null },
      { name: 'b', state: 'pending', attempt: 0, outcome: null },
    ], 'no step is left asking');
    assert.deepEqual(linesOf(ran), ['a', 'b'], 'the cancelled run ran nothing');
  });

  it('asks once per step for the whole run: a fail loop re-runs approved steps without asking again', async (t) => {
    const { root, home } = cliSandbox(t);
    const ran = path.join(root, 'ran.log');
    // check passes once fix has run twice: the first check fails, takes the loop back to fix, the second passes
    const dir = writeHorde(path.join(root, 'loop'), `
id = "loop"
pipeline = ["fix", "check"]

[[edges]]
from = "fix"
to = "check"

[[edges]]
from = "check"
to = "fix"
when = "fail"
max_loops = 2
`, { fix: verifyStep(`echo fix >> ${ran}`), check: verifyStep(`echo check >> ${ran}; [ "$(grep -c fix ${ran})" -ge 2 ]`) });

    const parked = await cli(home, ['run', dir]);
    assert.equal(parked.code, 3, outputOf(parked));
    const { runId, step } = approveLine(parked.stdout);
    assert.equal(step, 'fix');

    const first = await cli(home, ['approve', runId]);
    assert.equal(first.code, 3, outputOf(first));
    assert.equal(approveLine(first.stdout).step, 'check');
    assert.deepEqual(linesOf(ran), ['fix']);

    const second = await cli(home, ['approve', runId, '--json']);
    assert.equal(second.code, 0, outputOf(second));
    assert.deepEqual(linesOf(ran), ['fix', 'check', 'fix', 'check'], 'the loop ran fix and check again');
    const run = stdoutJson<RunJson>(second);
    assert.equal(run.state, 'succeeded');
    assert.deepEqual(brief(run.steps), [
      { name: 'fix', state: 'passed', attempt: 2, outcome: 'pass' },
      { name: 'check', state: 'passed', attempt: 2, outcome: 'pass' },
    ]);
  });

  it('deny fails the step with the reason; with no fail edge the run fails (exit 1) and show has the error', async (t) => {
    const { root, home } = cliSandbox(t);
    const ran = path.join(root, 'ran.log');
    const parked = await cli(home, ['run', writeGated(path.join(root, 'gated'), ran)]);
    assert.equal(parked.code, 3, outputOf(parked));
    const { runId } = approveLine(parked.stdout);

    const reason = 'wrong folder; not now';
    const denied = await cli(home, ['deny', runId, '--reason', reason]);
    assert.equal(denied.code, 1, outputOf(denied));
    assert.match(denied.stdout, new RegExp(`^run ${runId} failed: .*"a".*: ${reason} \\[KW_ERR_APPROVAL_DENIED\\]\\ndelivery: none \\(no step wrote an artifact\\)\\noutputs: +/.+/runs/${runId}/output\\n$`));
    assert.match(denied.stderr, new RegExp(`^${T} a denied by operator: ${reason}$`, 'm'));

    const [show, noneParked] = await Promise.all([cli(home, ['show', runId, '--json']), cli(home, ['runs', '--status', 'awaiting_input'])]);
    assert.equal(noneParked.code, 0, outputOf(noneParked));
    assert.equal(noneParked.stdout, 'no runs match --status awaiting_input\n');
    assert.equal(show.code, 0, outputOf(show));
    const view = stdoutJson<RunJson>(show);
    assert.equal(view.state, 'failed');
    assert.equal(view.error?.code, 'KW_ERR_APPROVAL_DENIED');
    assert.ok(view.error.message.includes(reason), view.error.message);
    assert.equal(view.pendingApproval, null);
    assert.equal(view.steps[1]?.state, 'pending', 'b never started');
    assert.deepEqual(linesOf(ran), [], 'the denied command never ran');

    const a = view.steps[0]!;
    assert.equal(a.state, 'failed', 'the denied step itself shows as failed');
    assert.equal(a.outcome, 'fail');
    assert.equal(a.error?.code, 'KW_ERR_APPROVAL_DENIED');
    assert.ok(a.error.message?.includes(reason));
  });
});
