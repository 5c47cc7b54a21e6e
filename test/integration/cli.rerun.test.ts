/**
 * `kowalski rerun <run-id> --from <step> [--horde <folder>] [--json]` as a real child
 * process: with an embedded engine and through a running server. Each verify command
 * appends its step's name to a file, to prove which steps ran again.
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { brief, cli, cliSandbox, linesOf, outputOf, startCli, stdoutJson, verifyStep, writeHorde } from '../../testkit/cli.js';
import type { CliResult, RunJson } from '../../testkit/cli.js';
import { cleanups } from '../../testkit/cleanup.js';
import { writeTestToken } from '../support/token.js';

const SERVING = /^kowalski serving .* at (http:\/\/127\.0\.0\.1:\d+\/)/;

function line(home: string, ran: string, three = 'three'): void {
  writeHorde(path.join(home, 'hordes', 'line'), 'id = "line"\npipeline = ["one", "two", "three"]\nconfirm_commands = false', {
    one: verifyStep(`echo one >> ${ran}`),
    two: verifyStep(`echo two >> ${ran}`),
    three: verifyStep(`echo ${three} >> ${ran}`),
  });
}

describe('kowalski rerun', { concurrency: true }, () => {
  it('re-runs from the last step (--json): one and two are reused, three runs; an edited --horde folder runs its edited step; a bad --from exits 2 naming the steps', async (t) => {
    const { root, home } = cliSandbox(t);
    const ran = path.join(root, 'ran.log');
    line(home, ran);
    const first = stdoutJson<RunJson>(await cli(home, ['run', 'line', '--json']));
    assert.equal(first.state, 'succeeded');

    const r = await cli(home, ['rerun', first.runId, '--from', 'three', '--json']);
    assert.equal(r.code, 0, outputOf(r));
    const again = stdoutJson<RunJson & { provenance: string }>(r);
    assert.notEqual(again.runId, first.runId);
    assert.equal(again.provenance, `rerun:${first.runId}`);
    assert.deepEqual(brief(again.steps).map((s) => `${s.name}:${s.state}`), ['one:passed', 'two:passed', 'three:passed']);
    assert.deepEqual(linesOf(ran), ['one', 'two', 'three', 'three'], 'only three ran again');

    const edited = path.join(root, 'edited');
    writeHorde(edited, 'id = "line"\npipeline = ["one", "two", "three"]\nconfirm_commands = false', {
      one: verifyStep(`echo one >> ${ran}`), two: verifyStep(`echo two >> ${ran}`), three: verifyStep(`echo three-edited >> ${ran}`),
    });
    const e = await cli(home, ['rerun', first.runId, '--from', 'three', '--horde', edited]);
    assert.equal(e.code, 0, outputOf(e));
    assert.match(e.stderr, new RegExp(`re-runs ${first.runId} from "three"`));
    assert.match(e.stdout, /^run r[0-9a-z]+ succeeded\ndelivery: \/.+\/three\.md\noutputs: +\/.+\n$/);
    assert.deepEqual(linesOf(ran).slice(4), ['three-edited']);

    const bad = await cli(home, ['rerun', first.runId, '--from', 'nope', '--json']);
    assert.equal(bad.code, 2, outputOf(bad));
    const err = stdoutJson<{ error: { code: string; message: string } }>(bad).error;
    assert.equal(err.code, 'KW_ERR_RERUN_STEP_UNKNOWN');
    assert.match(err.message, /"nope" is not in the pipeline of line .*one, two, three/);
    const missing = await cli(home, ['rerun', first.runId]);
    assert.equal(missing.code, 2, outputOf(missing));
    assert.match(missing.stderr, /--from <step>/);
  });

  it('through a running server: the re-run is made and followed there', async (t) => {
    const defer = cleanups(t);
    const { root, home } = cliSandbox(t);
    const ran = path.join(root, 'ran.log');
    line(home, ran);
    writeTestToken(home);
    const server = startCli(home, ['serve', '--no-open', '--port', '0'], { limitMs: 180_000 });
    defer(async (): Promise<CliResult> => {
      if (server.child.exitCode === null) server.child.kill('SIGTERM');
      return server.exited;
    });
    await server.stderrLine(SERVING);
    const first = stdoutJson<RunJson>(await cli(home, ['run', 'line', '--json']));
    assert.equal(first.state, 'succeeded');
    const r = await cli(home, ['rerun', first.runId, '--from', 'two', '--json']);
    assert.equal(r.code, 0, outputOf(r));
    const again = stdoutJson<RunJson & { provenance: string }>(r);
    assert.equal(again.provenance, `rerun:${first.runId}`);
    assert.equal(again.state, 'succeeded');
    assert.deepEqual(linesOf(ran), ['one', 'two', 'three', 'two', 'three']);
    const folder = await cli(home, ['rerun', first.runId, '--from', 'two', '--horde', path.join(home, 'hordes', 'line'), '--json']);
    assert.equal(folder.code, 0, outputOf(folder));
  });
});
