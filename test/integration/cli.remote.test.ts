/**
 * The CLI while `kowalski serve` owns the data directory: run, approve, deny, cancel,
 * resume, runs and show go through the server's API and websocket (real processes), with
 * the same output and exit codes as with an embedded engine; a stale owner file (a
 * killed server) and a stopped server send the CLI back to the embedded engine; a
 * server that does not answer is named. Last, following a run over the websocket
 * survives a dropped connection (an in-process server, closed and started again).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import type { TestContext } from 'node:test';
import { buildApi } from '../../api/index.js';
import type { Api } from '../../api/index.js';
import { apiClient } from '../../bin/commands/remote.js';
import { followRemote } from '../../bin/commands/remote-follow.js';
import type { FollowedEvent } from '../../bin/commands/progress.js';
import { DEFAULT_CONFIG, createEngine } from '../../engine/index.js';
import { approveLine, brief, cli, linesOf, outputOf, startCli, stdoutJson, verifyStep, writeHorde } from '../../testkit/cli.js';
import type { CliResult, RunJson, RunningCli } from '../../testkit/cli.js';
import { TEST_KINDS } from '../support/engine.js';
import { cleanups } from '../../testkit/cleanup.js';
import { AUTH, TEST_TOKEN, writeTestToken } from '../support/token.js';
import { testOwnCode } from '../../testkit/dist.js';

const T = String.raw`\[\d\d:\d\d:\d\d\]`;
const SERVING = /^kowalski serving .* at (http:\/\/127\.0\.0\.1:\d+\/)/;

interface Sandbox {
  root: string;
  home: string;
  /** `ran.log`: each verify command appends its step's name, to prove what ran and how often. */
  ran: string;
  defer: (fn: () => unknown) => void;
}

function sandbox(t: TestContext): Sandbox {
  const defer = cleanups(t);
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'kw-remote-')));
  defer(() => fs.rmSync(root, { recursive: true, force: true }));
  const home = path.join(root, 'home');
  const ran = path.join(root, 'ran.log');
  // Two verify steps behind approvals (confirm_commands is on by default), in the catalog by id.
  writeHorde(path.join(home, 'hordes', 'gated'), 'id = "gated"\npipeline = ["a", "b"]', { a: verifyStep(`echo a >> ${ran}`), b: verifyStep(`echo b >> ${ran}`) });
  return { root, home, ran, defer };
}

/** Stop a child that may be stopped (SIGSTOP), running or gone. */
async function stop(child: RunningCli): Promise<CliResult> {
  if (child.child.exitCode === null && child.child.signalCode === null) {
    child.child.kill('SIGCONT');
    child.child.kill('SIGTERM');
  }
  return child.exited;
}

/** `kowalski serve` on a free port; resolves once it listens, with its URL. */
async function serve(s: Sandbox, args: string[] = []): Promise<{ server: RunningCli; url: string }> {
  writeTestToken(s.home);
  const server = startCli(s.home, ['serve', '--no-open', '--port', '0', ...args], { limitMs: 180_000 });
  s.defer(() => stop(server));
  const url = SERVING.exec(await server.stderrLine(SERVING))![1]!;
  return { server, url };
}

async function getJson(url: string, headers: Record<string, string> = AUTH): Promise<{ status: number; json: any }> {
  const res = await fetch(url, { headers });
  return { status: res.status, json: await res.json() };
}

function ownerFile(home: string): string {
  return path.join(home, 'kowalski.owner.json');
}

/** Output with what differs between two runs of the same thing made the same: times, run ids, hashes, durations. */
function normalized(text: string): string {
  return text.replace(/\d\d:\d\d:\d\d/g, 'HH:MM:SS').replace(/\br[0-9a-z]{12,}\b/g, 'RUN').replace(/\b[0-9a-f]{64}\b/g, 'HASH').replace(/\d+\.\d\ds/g, 'N.NNs');
}

describe('the CLI through a running server', { concurrency: 2 }, () => {
  it('run starts the run on the server and parks (exit 3); approve continues it; cancel; runs and show answer as embedded mode does', async (t) => {
    const s = sandbox(t);
    const { server, url } = await serve(s);
    assert.equal(JSON.parse(fs.readFileSync(ownerFile(s.home), 'utf8')).url, url);

    const parked = await cli(s.home, ['run', 'gated']);
    assert.equal(parked.code, 3, outputOf(parked));
    const { runId, step } = approveLine(parked.stdout);
    assert.equal(step, 'a');
    assert.match(parked.stdout, /^step "a" wants to run a command:$/m);
    assert.ok(parked.stdout.includes(`\n  cwd:  ${path.join(s.home, 'runs', runId, 'output')}\n`), parked.stdout);
    const progress = parked.stderr.trimEnd().split('\n');
    assert.equal(progress.length, 2, parked.stderr);
    assert.match(progress[0]!, new RegExp(`^${T} run ${runId} created \\(gated\\)$`));
    assert.match(progress[1]!, new RegExp(`^${T} a waits for approval$`));

    // the server has it, started by the CLI
    const listed = await getJson(`${url}api/runs`);
    assert.deepEqual(listed.json.runs.map((r: any) => [r.id, r.state, r.provenance]), [[runId, 'awaiting_input', 'cli']]);

    const first = await cli(s.home, ['approve', runId, '--step', 'a']);
    assert.equal(first.code, 3, outputOf(first));
    assert.equal(approveLine(first.stdout).step, 'b');
    assert.deepEqual(linesOf(s.ran), ['a']);
    const lines = first.stderr.trimEnd().split('\n');
    for (const re of ['a approved by operator \\(api\\)', 'a #1 started', 'a #1 passed in \\d+\\.\\d\\ds \\(exit 0\\)', 'b waits for approval']) {
      assert.equal(lines.filter((l) => new RegExp(`^${T} ${re}$`).test(l)).length, 1, `one "${re}" line:\n${first.stderr}`);
    }
    assert.doesNotMatch(first.stderr, /created/, 'only what happened after the approval');

    const done = await cli(s.home, ['approve', runId, '--json']);
    assert.equal(done.code, 0, outputOf(done));
    const finished = stdoutJson<RunJson>(done);
    assert.equal(finished.state, 'succeeded');
    assert.deepEqual(brief(finished.steps), [
      { name: 'a', state: 'passed', attempt: 1, outcome: 'pass' },
      { name: 'b', state: 'passed', attempt: 1, outcome: 'pass' },
    ]);
    assert.deepEqual(linesOf(s.ran), ['a', 'b'], 'each command ran once');

    const again = await cli(s.home, ['run', 'gated', '--json']);
    assert.equal(again.code, 3, outputOf(again));
    const second = stdoutJson<RunJson>(again).runId;
    const cancelled = await cli(s.home, ['cancel', second]);
    assert.equal(cancelled.code, 0, outputOf(cancelled));
    assert.equal(cancelled.stdout, `run ${second} cancelled\n`);

    // what the server answers, then (server stopped) what the database says: the same, byte for byte
    const reads = [['runs', '--json'], ['runs'], ['show', runId, '--json'], ['show', runId], ['show', second, '--json'],
      ['cancel', second], ['show', 'r0000000000nope'], ['approve', 'nope', '--json']];
    const remote = await Promise.all(reads.map((args) => cli(s.home, args)));
    assert.deepEqual(remote.map((r) => r.code), [0, 0, 0, 0, 0, 2, 2, 2], remote.map(outputOf).join('\n'));
    assert.deepEqual(stdoutJson<{ id: string; state: string; provenance: string }[]>(remote[0]!).map((r) => [r.id, r.state, r.provenance]), [[second, 'cancelled', 'cli'], [runId, 'succeeded', 'cli']]);
    assert.match(remote[5]!.stderr, new RegExp(`run ${second} has already cancelled \\[KW_ERR_RUN_FINISHED\\]`));
    assert.equal(remote[6]!.stderr, `kowalski: no run r0000000000nope in ${s.home} [KW_ERR_RUN_NOT_FOUND]\n`);
    assert.deepEqual(stdoutJson(remote[7]!), { error: { code: 'KW_ERR_RUN_NOT_FOUND', message: `no run nope in ${s.home}` } });

    const stopped = await stop(server);
    assert.equal(stopped.code, 0, outputOf(stopped));
    assert.equal(fs.existsSync(ownerFile(s.home)), false, 'a clean stop removes the owner file');
    const local: CliResult[] = [];
    for (const args of reads) local.push(await cli(s.home, args)); // one at a time: cancel and approve take the lock
    local.forEach((r, i) => {
      assert.equal(r.code, remote[i]!.code, `${reads[i]!.join(' ')}: ${outputOf(r)}`);
      assert.equal(r.stdout, remote[i]!.stdout, `kowalski ${reads[i]!.join(' ')} prints the same`);
      assert.equal(r.stderr, remote[i]!.stderr, `kowalski ${reads[i]!.join(' ')} reports the same`);
    });

    // with no server the CLI runs its own engine again, printing what it printed through the server
    const embedded = await cli(s.home, ['run', 'gated']);
    assert.equal(embedded.code, 3, outputOf(embedded));
    assert.equal(normalized(embedded.stderr), normalized(parked.stderr));
    assert.equal(normalized(embedded.stdout), normalized(parked.stdout));
  });

  it('deny --reason fails the run (exit 1) showing the reason; a folder is refused (exit 2) naming the hordes folder', async (t) => {
    const s = sandbox(t);
    const folder = writeHorde(path.join(s.root, 'elsewhere'), 'id = "elsewhere"\npipeline = ["x"]', { x: verifyStep('echo hi') });
    const { url } = await serve(s);
    const [parked, byFolder, typo] = await Promise.all([cli(s.home, ['run', 'gated']), cli(s.home, ['run', folder]), cli(s.home, ['run', 'no-such-horde'])]);
    assert.equal(parked.code, 3, outputOf(parked));
    const { runId } = approveLine(parked.stdout);

    assert.equal(byFolder.code, 2, outputOf(byFolder));
    assert.match(byFolder.stderr, /\[KW_ERR_USAGE\]\n$/);
    assert.ok(byFolder.stderr.includes(`copy the folder into ${path.join(s.home, 'hordes')}/`), byFolder.stderr);
    assert.match(byFolder.stderr, /or stop the server/);
    assert.equal(typo.code, 2, outputOf(typo));
    assert.match(typo.stderr, /\[KW_ERR_HORDE_NOT_FOUND\]/);
    assert.deepEqual((await getJson(`${url}api/runs`)).json.runs.map((r: any) => r.id), [runId], 'neither started a run');

    const reason = 'wrong folder; not now';
    const denied = await cli(s.home, ['deny', runId, '--reason', reason]);
    assert.equal(denied.code, 1, outputOf(denied));
    assert.match(denied.stdout, new RegExp(`^run ${runId} failed: .*"a".*: ${reason} \\[KW_ERR_APPROVAL_DENIED\\]\\ndelivery: none \\(no step wrote an artifact\\)\\noutputs: +/.+/runs/${runId}/output\\n$`));
    assert.match(denied.stderr, new RegExp(`^${T} a denied by operator \\(api\\): ${reason}$`, 'm'));
    assert.match(denied.stderr, new RegExp(`^${T} run failed$`, 'm'));
    const view = (await getJson(`${url}api/runs/${runId}`)).json;
    assert.equal(view.run.state, 'failed');
    assert.equal(view.run.errorCode, 'KW_ERR_APPROVAL_DENIED');
    assert.deepEqual(linesOf(s.ran), [], 'the denied command never ran');
  });

  it('run follows a run to the end (exit 0); resume follows the server\'s unfinished runs', async (t) => {
    const s = sandbox(t);
    const go = path.join(s.root, 'go');
    // holds until the test creates `go` (the command polls; the test waits on lines, never on time)
    writeHorde(path.join(s.home, 'hordes', 'hold'), 'id = "hold"\npipeline = ["wait", "after"]\nconfirm_commands = false', {
      wait: verifyStep(`while [ ! -e ${go} ]; do sleep 0.02; done`),
      after: verifyStep(`echo after >> ${s.ran}`),
    });
    await serve(s);
    const running = startCli(s.home, ['run', 'hold']);
    s.defer(() => stop(running));
    const runId = /run (r[0-9a-z]+) created/.exec(await running.stderrLine(/\] run r[0-9a-z]+ created \(hold\)$/))![1]!;
    await running.stderrLine(/\] wait #1 started$/);

    const resume = startCli(s.home, ['resume']);
    s.defer(() => stop(resume));
    await resume.stderrLine(/^recovery: resumed 1 run; 0 still parked waiting for the operator$/);
    fs.writeFileSync(go, '');

    const [ran, resumed] = await Promise.all([running.exited, resume.exited]);
    assert.equal(ran.code, 0, outputOf(ran));
    assert.equal(ran.stdout, `run ${runId} succeeded\ndelivery: ${s.home}/runs/${runId}/output/after.md\noutputs:  ${s.home}/runs/${runId}/output\n`);
    const lines = ran.stderr.trimEnd().split('\n');
    ['run \\S+ created \\(hold\\)', 'wait #1 started', 'wait #1 passed in \\S+ \\(exit 0\\)', 'after #1 started', 'after #1 passed in \\S+ \\(exit 0\\)', 'run succeeded']
      .forEach((re, i) => assert.match(lines[i] ?? '', new RegExp(`^${T} ${re}$`), ran.stderr));
    assert.equal(lines.length, 6, ran.stderr);
    assert.deepEqual(linesOf(s.ran), ['after']);

    assert.equal(resumed.code, 0, outputOf(resumed));
    assert.equal(resumed.stdout, `${runId} succeeded\n`);
    assert.match(resumed.stderr, /^kowalski: the server at http:\/\/127\.0\.0\.1:\d+\/ \(process \d+\) continues the unfinished runs; at its start \(.*\) it reported recovery: /m);
  });

  it('a stale owner file (the server was killed) and a silent server: the CLI falls back to its own engine, or names the server', async (t) => {
    const s = sandbox(t);
    const { server, url } = await serve(s);
    const parked = await cli(s.home, ['run', 'gated']);
    assert.equal(parked.code, 3, outputOf(parked));
    const { runId } = approveLine(parked.stdout);

    // stopped (SIGSTOP): it holds the lock and its socket takes connections, but nothing answers
    server.child.kill('SIGSTOP');
    const [silent, read] = await Promise.all([cli(s.home, ['approve', runId]), cli(s.home, ['show', runId, '--json'])]);
    assert.equal(silent.code, 1, outputOf(silent));
    assert.match(silent.stderr, /\[KW_ERR_SERVER_UNREACHABLE\]\n$/);
    assert.ok(silent.stderr.includes(`a kowalski server (process ${server.child.pid}) owns ${s.home} and should answer at ${url}`), silent.stderr);
    assert.equal(read.code, 0, `show reads the database meanwhile: ${outputOf(read)}`);
    assert.equal(stdoutJson<RunJson>(read).state, 'awaiting_input');
    assert.deepEqual(linesOf(s.ran), [], 'nothing was approved');

    // killed: the owner file still names its URL, but the lock went with the process
    server.child.kill('SIGKILL');
    await server.exited;
    assert.equal(JSON.parse(fs.readFileSync(ownerFile(s.home), 'utf8')).url, url, 'the owner file was left behind');
    const approved = await cli(s.home, ['approve', runId]);
    assert.equal(approved.code, 3, outputOf(approved));
    assert.match(approved.stderr, new RegExp(`^${T} a approved by operator$`, 'm'), 'decided by this process\'s own engine');
    assert.equal(approveLine(approved.stdout).step, 'b');
    assert.deepEqual(linesOf(s.ran), ['a']);
    assert.equal(fs.existsSync(ownerFile(s.home)), false, 'the embedded engine took the directory over and released it');
  });

  it('a server bound beyond loopback: the CLI sends the token it finds in the data directory', async (t) => {
    const s = sandbox(t);
    const { url } = await serve(s, ['--host', '0.0.0.0']);
    assert.equal((await getJson(`${url}api/runs`, {})).status, 401, 'the server wants a token');
    const parked = await cli(s.home, ['run', 'gated', '--json']);
    assert.equal(parked.code, 3, outputOf(parked));
    const runId = stdoutJson<RunJson>(parked).runId;
    const token = fs.readFileSync(path.join(s.home, 'api-token'), 'utf8').trim();
    const listed = await getJson(`${url}api/runs`, { authorization: `Bearer ${token}` });
    assert.deepEqual(listed.json.runs.map((r: any) => [r.id, r.provenance]), [[runId, 'cli']]);

    fs.rmSync(path.join(s.home, 'api-token'));
    const refused = await cli(s.home, ['runs']);
    assert.equal(refused.code, 1, outputOf(refused));
    assert.match(refused.stderr, /needs the token in .*api-token, which is missing \[KW_ERR_UNAUTHORIZED\]\n$/);
  });
});

describe('following a run over the websocket', () => {
  it('a dropped connection is opened again after the last event seen: every event once, none missed', async (t) => {
    const defer = cleanups(t);
    const home = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'kw-follow-')));
    defer(() => fs.rmSync(home, { recursive: true, force: true }));
    const go = path.join(home, 'go');
    writeHorde(path.join(home, 'hordes', 'hold'), 'id = "hold"\npipeline = ["first", "wait", "last"]\nconfirm_commands = false', {
      first: 'kind = "noop"',
      wait: verifyStep(`while [ ! -e ${go} ]; do sleep 0.02; done`),
      last: 'kind = "noop"',
    });
    const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home, config: DEFAULT_CONFIG, extraStepKinds: TEST_KINDS });
    defer(() => engine.close());
    const listen = async (port: number): Promise<Api> => {
      const api = await buildApi(engine, { token: TEST_TOKEN, port });
      defer(async () => {
        if (api.app.server.listening) await api.app.close();
      });
      await api.app.listen({ host: '127.0.0.1', port });
      return api;
    };
    const first = await listen(0);
    const port = (first.app.server.address() as AddressInfo).port;
    const client = apiClient({ url: `http://127.0.0.1:${port}/`, pid: process.pid, dataDir: home, token: TEST_TOKEN });

    const runId = await engine.startRun((await engine.resolveHorde('hold')).horde, {});
    const heard: FollowedEvent[] = [];
    const drops: string[] = [];
    let waitStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (waitStarted = resolve));
    const following = followRemote(client, runId, 0, {
      onEvent: (e) => {
        heard.push(e);
        if (e.stored.event.type === 'step.started' && e.stored.event.step === 'wait') waitStarted();
      },
      onReconnect: (why) => drops.push(why),
    });
    await started;

    // the server goes away; the run finishes meanwhile; a new server listens on the same port
    await first.app.close();
    fs.writeFileSync(go, '');
    assert.equal(await engine.waitForRun(runId), 'succeeded');
    const missed = engine.events(runId).filter((e) => e.seq > heard[heard.length - 1]!.stored.seq);
    assert.ok(missed.length >= 3, 'events were committed while the client was away');
    await listen(port);

    assert.equal(await following, 'succeeded');
    assert.ok(drops.length >= 1, 'the connection dropped');
    assert.deepEqual(heard.map((e) => e.stored), engine.events(runId), 'every event, in order, once');
  });
});
