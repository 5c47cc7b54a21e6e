/** One engine per data directory: a second `run` is refused while one runs; `runs` and `show` read without the lock. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { brief, cli, cliSandbox, outputOf, startCli, stdoutJson, verifyStep, writeHorde } from '../../testkit/cli.js';
import type { RunJson } from '../../testkit/cli.js';
import { processesWithEnv } from '../support/engine.js';
import { cleanups } from '../../testkit/cleanup.js';


describe('the data directory lock', () => {
  it('a second run on the same KOWALSKI_HOME exits 2 naming the running process; runs and show still work; SIGTERM stops the first', async (t) => {
    const { root, home } = cliSandbox(t);
    const dir = writeHorde(path.join(root, 'slow'), 'id = "slow"\npipeline = ["nap"]\nconfirm_commands = false', { nap: verifyStep('sleep 30') });
    const first = startCli(home, ['run', dir]);
    cleanups(t)(async () => {
      if (first.child.exitCode === null && first.child.signalCode === null) {
        first.child.kill('SIGTERM');
        await first.exited;
      }
    });
    const created = await first.stderrLine(/\] run r[0-9a-z]+ created \(slow\)$/);
    const runId = /run (r[0-9a-z]+) created/.exec(created)![1]!;
    await first.stderrLine(/\] nap #1 started$/);

    const [second, runs, show, typo] = await Promise.all([
      cli(home, ['run', dir]),
      cli(home, ['runs', '--json']),
      cli(home, ['show', runId, '--json']),
      cli(home, ['run', 'no-such-horde']),
    ]);
    assert.equal(typo.code, 2, outputOf(typo));
    assert.match(typo.stderr, /\[KW_ERR_HORDE_NOT_FOUND\]/, 'a horde that does not exist is reported as such, not as the lock');
    assert.equal(second.code, 2, outputOf(second));
    assert.match(second.stderr, /\[KW_ERR_DATA_DIR_LOCKED\]/);
    assert.ok(second.stderr.includes(`another kowalski engine is using ${home}: process ${first.child.pid}`), second.stderr);

    assert.equal(runs.code, 0, outputOf(runs));
    assert.deepEqual(stdoutJson<{ id: string; state: string }[]>(runs).map((r) => [r.id, r.state]), [[runId, 'running']], 'the refused run left no run behind');

    assert.equal(show.code, 0, outputOf(show));
    const view = stdoutJson<RunJson>(show);
    assert.equal(view.state, 'running');
    assert.deepEqual(brief(view.steps), [{ name: 'nap', state: 'running', attempt: 1, outcome: null }]);
    assert.equal(view.pendingApproval, null);

    assert.equal(first.child.exitCode, null, 'the first run is still going');
    first.child.kill('SIGTERM');
    const stopped = await first.exited;
    assert.equal(stopped.code, 1, outputOf(stopped));
    assert.match(stopped.stderr, /kowalski: stopping; unfinished runs continue with `kowalski resume`/);
    if (fs.existsSync('/proc')) assert.deepEqual(processesWithEnv('KOWALSKI_RUN_ID', runId), [], 'its command was stopped with it');
  });
});
