/**
 * Results you can find: `run` ends with the delivery file and the outputs folder (absolute),
 * `show` lists each artifact by its absolute path, `open` opens the run's page of the server
 * that owns the data directory (real processes; the browser opener is a script on PATH).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { cleanups } from '../../testkit/cleanup.js';
import { cli, cliSandbox, outputOf, startCli, stdoutJson, verifyStep, writeHorde } from '../../testkit/cli.js';
import type { RunningCli } from '../../testkit/cli.js';
import { TEST_TOKEN, writeTestToken } from '../support/token.js';

const SERVING = /^kowalski serving .* at (http:\/\/127\.0\.0\.1:\d+\/)/;

/** The value of a `key: value` line of stdout. */
function lineOf(stdout: string, key: string): string {
  const m = new RegExp(`^${key}:\\s+(.*)$`, 'm').exec(stdout);
  assert.ok(m !== null, `no "${key}:" line in:\n${stdout}`);
  return m[1]!;
}

describe('where a run\'s results are', () => {
  it('run prints the delivery (delivery_root_rel when written, else the last artifact) and the outputs folder; show lists every artifact by its absolute path', async (t) => {
    const { root, home } = cliSandbox(t);
    const declared = writeHorde(path.join(root, 'declared'), 'id = "declared"\npipeline = ["a", "b"]\nconfirm_commands = false\ndelivery_root_rel = "report.md"', {
      a: verifyStep('echo a'),
      b: verifyStep('echo "# Report" > report.md'),
    });
    const plain = writeHorde(path.join(root, 'plain'), 'id = "plain"\npipeline = ["a", "b"]\nconfirm_commands = false', {
      a: verifyStep('echo a', 'output = "first.md"'),
      b: verifyStep('echo b', 'output = "notes/last.md"'),
    });

    const run = await cli(home, ['run', declared]);
    assert.equal(run.code, 0, outputOf(run));
    const outputs = lineOf(run.stdout, 'outputs');
    const delivery = lineOf(run.stdout, 'delivery');
    assert.ok(path.isAbsolute(outputs) && fs.statSync(outputs).isDirectory(), outputs);
    assert.equal(delivery, path.join(outputs, 'report.md'));
    assert.equal(fs.readFileSync(delivery, 'utf8'), '# Report\n');
    const runId = /^run (r[0-9a-z]+) succeeded$/m.exec(run.stdout)?.[1];
    assert.ok(runId !== undefined, run.stdout);

    const shown = await cli(home, ['show', runId]);
    assert.equal(shown.code, 0, outputOf(shown));
    assert.equal(lineOf(shown.stdout, 'delivery'), delivery);
    assert.equal(lineOf(shown.stdout, 'outputs'), outputs);
    const listed = shown.stdout.split('artifacts:\n')[1]?.trim().split('\n').map((l) => l.trim().split(/\s+/)) ?? [];
    assert.equal(listed.length, 2, shown.stdout);
    for (const [step, file] of listed) {
      assert.ok(['a', 'b'].includes(step!) && path.isAbsolute(file!) && file!.startsWith(`${outputs}${path.sep}`), `${step} ${file}`);
      assert.ok(fs.statSync(file!).isFile(), `${file} exists`);
    }
    const json = stdoutJson<{ delivery: string; outputs: string }>(await cli(home, ['show', runId, '--json']));
    assert.deepEqual([json.delivery, json.outputs], [delivery, outputs]);

    // No delivery_root_rel: the last step's artifact is the delivery.
    const second = await cli(home, ['run', plain, '--json']);
    assert.equal(second.code, 0, outputOf(second));
    const j = stdoutJson<{ delivery: string; outputs: string }>(second);
    assert.equal(j.delivery, path.join(j.outputs, 'notes', 'last.md'));
    assert.ok(fs.statSync(j.delivery).isFile());
  });

  it('a failed run still says where its outputs are; the delivery is what passed before it failed', async (t) => {
    const { root, home } = cliSandbox(t);
    const horde = writeHorde(path.join(root, 'fails'), 'id = "fails"\npipeline = ["a", "b"]\nconfirm_commands = false', {
      a: verifyStep('echo a', 'output = "a.md"'),
      b: verifyStep('exit 3', 'output = "b.md"'),
    });
    const run = await cli(home, ['run', horde]);
    assert.equal(run.code, 1, outputOf(run));
    const outputs = lineOf(run.stdout, 'outputs');
    assert.equal(lineOf(run.stdout, 'delivery'), path.join(outputs, 'a.md'));
  });

  it('a misspelt horde id is refused with the nearest ids, like a misspelt command', async (t) => {
    const { home } = cliSandbox(t);
    const typo = await cli(home, ['run', 'projet-check']);
    assert.equal(typo.code, 2, outputOf(typo));
    assert.match(typo.stderr, /no horde "projet-check": .*; did you mean "project-check"\? \[KW_ERR_HORDE_NOT_FOUND\]/);
    const json = stdoutJson<{ error: { message: string } }>(await cli(home, ['run', 'spreadsheet', '--json']));
    assert.match(json.error.message, /did you mean "spreadsheet-analyst" or "spreadsheet-profile"\?$/);
  });

  it('open finds the running server and opens the run\'s page; a typo and a missing server are named', async (t) => {
    const defer = cleanups(t);
    const { root, home } = cliSandbox(t);
    writeHorde(path.join(home, 'hordes', 'quick'), 'id = "quick"\npipeline = ["a"]\nconfirm_commands = false', { a: verifyStep('echo a') });

    const none = await cli(home, ['open', 'r0000000000000']);
    assert.equal(none.code, 1, outputOf(none));
    assert.match(none.stderr, /no kowalski server runs on .*kowalski serve.*\[KW_ERR_SERVER_NOT_RUNNING\]/);

    writeTestToken(home);
    const server: RunningCli = startCli(home, ['serve', '--no-open', '--port', '0'], { limitMs: 180_000 });
    defer(async () => {
      if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
      await server.exited;
    });
    const url = SERVING.exec(await server.stderrLine(SERVING))![1]!;
    const run = await cli(home, ['run', 'quick', '--json']);
    assert.equal(run.code, 0, outputOf(run));
    const { runId } = stdoutJson<{ runId: string }>(run);

    // A display and an opener on PATH: the opener is handed the run's page.
    const bin = path.join(root, 'bin');
    const seen = path.join(root, 'opened.txt');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'xdg-open'), `#!/bin/sh\nprintf '%s\\n' "$@" > ${JSON.stringify(`${seen}.tmp`)} && mv ${JSON.stringify(`${seen}.tmp`)} ${JSON.stringify(seen)}\n`, { mode: 0o755 });
    const env = { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, DISPLAY: ':99', CI: undefined, KOWALSKI_NO_OPEN: undefined };
    const opened = await cli(home, ['open', runId], { env });
    assert.equal(opened.code, 0, outputOf(opened));
    // A one-time sign-in link to the run's page: the code is the server's, minted for this command.
    const link = new RegExp(`^${url.replace(/[.?/]/g, '\\$&')}\\?code=([\\w-]{22})#/runs/${runId}\n$`);
    const code = link.exec(opened.stdout)?.[1];
    assert.ok(code !== undefined, opened.stdout);
    // The opener is detached: wait (bounded) for what it wrote.
    const deadline = Date.now() + 10_000;
    while (!fs.existsSync(seen) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    assert.equal(fs.readFileSync(seen, 'utf8'), opened.stdout);
    const exchange = async (c: string): Promise<{ status: number; json: any }> => {
      const res = await fetch(new URL('api/auth/exchange', url), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: c }) });
      return { status: res.status, json: await res.json() };
    };
    assert.deepEqual(await exchange(code), { status: 200, json: { token: TEST_TOKEN } }, 'the link signs in once');
    assert.equal((await exchange(code)).json.error.code, 'KW_ERR_LOGIN_CODE', 'and only once');

    const printed = stdoutJson<{ runId: string; url: string; expiresAt: string; opened: boolean }>(await cli(home, ['open', runId, '--print', '--json'], { env }));
    assert.deepEqual([printed.runId, link.test(`${printed.url}\n`), printed.opened], [runId, true, false]);
    assert.ok(Date.parse(printed.expiresAt) > Date.now(), printed.expiresAt);
    const bare = await cli(home, ['open', '--print']);
    assert.match(bare.stdout, new RegExp(`^${url.replace(/[.?/]/g, '\\$&')}\\?code=[\\w-]{22}\n`), 'without a run, the app itself');

    const typo = await cli(home, ['open', 'r0000000000000']);
    assert.equal(typo.code, 2, outputOf(typo));
    assert.match(typo.stderr, /\[KW_ERR_RUN_NOT_FOUND\]/);
  });
});
