/**
 * A plugin's process under failure: a hung call is killed (its whole process group) after
 * the time limit, a crash fails the call it happened in, both are counted and reported, and
 * the next call starts the process again — at most 3 times in 10 minutes, then the plugin is
 * failed. A start that fails, an answer too large, a cancelled call, a stop.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { KowalskiError } from '../../core/index.js';
import type { ErrorCode } from '../../core/index.js';
import type { Clock } from '../../engine/base/clock.js';
import { cleanups } from '../../testkit/cleanup.js';
import { markedProcesses, markProcesses, NO_GRANTS, NODE_ONLY, startTestPlugin } from '../support/plugins.js';
import { waitFor } from '../../testkit/wait.js';
import { nodeArgsFor } from '../../testkit/dist.js';

const TOOLS = `
import fs from 'node:fs';
import cp from 'node:child_process';
export async function ok(a) { return 'ok ' + (a.n ?? ''); }
export async function spin(a, k) {
  if (a.grandchild) {
    const child = cp.spawn('sleep', ['60'], { stdio: 'ignore' });
    fs.writeFileSync(k.dataDir + '/grandchild.pid', String(child.pid));
  }
  for (;;) {}
}
export async function die() { console.error('about to die: ' + 'x'.repeat(10)); process.exit(3); }
export async function big() { return 'x'.repeat(5000); }
export async function wait(a, k) {
  await new Promise((resolve) => k.signal.addEventListener('abort', resolve));
  fs.writeFileSync(k.dataDir + '/aborted', String(k.signal.reason?.message));
  return 'aborted';
}
export async function fails() { throw new Error('no such city: Atlantis'); }
`;
const NAMES = ['ok', 'spin', 'die', 'big', 'wait', 'fails'];
const REPO = path.resolve(import.meta.dirname, '../..');

function codeOf(err: unknown): ErrorCode | undefined {
  return err instanceof KowalskiError ? err.code : undefined;
}

async function rejectsWith(promise: Promise<unknown>, code: ErrorCode, pattern: RegExp): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.equal(codeOf(err), code, String(err));
    assert.match((err as Error).message, pattern);
    return true;
  });
}

for (const [how, sandbox] of [['Node only', NODE_ONLY], ['on this machine', undefined]] as const) {
  test(`a hung call is killed after the time limit, with everything it started; the next call starts it again (${how})`, async (t) => {
    const mark = markProcesses(t);
    const p = startTestPlugin(t, { 'index.js': TOOLS }, NAMES, {
      callTimeoutMs: 1500, permissions: { ...NO_GRANTS, exec: true, env: ['KOWALSKI_STEP_TOKEN'] }, ...(sandbox === undefined ? {} : { sandbox }),
    });
    assert.equal((await p.call('ok')).content, 'ok ');
    const hung = p.call('spin', { grandchild: true });
    await waitFor(() => fs.existsSync(path.join(p.dataDir, 'grandchild.pid')), 'the hung plugin to start a process');
    assert.ok(markedProcesses(mark).some((m) => m.command === 'sleep 60'), JSON.stringify(markedProcesses(mark)));
    await rejectsWith(hung, 'KW_ERR_PLUGIN_TIMEOUT', /^plugin hello: tool spin did not answer within 1500 ms; its process was killed/);
    await waitFor(() => markedProcesses(mark).length === 0, 'the hung plugin and the process it started to be killed');
    await waitFor(() => !p.proc.stats().running, 'the hung process to be gone');
    assert.deepEqual(p.failures.map((f) => [f.phase, codeOf(f.err)]), [['call', 'KW_ERR_PLUGIN_TIMEOUT']]);

    assert.equal((await p.call('ok', { n: 2 })).content, 'ok 2');
    assert.deepEqual(p.proc.stats(), { restarts: 1, failures: 1, running: true });
  });
}

test('a call made the moment a hung call times out goes to a new process, never to the one being killed; a call waiting beside the hung one fails with it', async (t) => {
  const p = startTestPlugin(t, { 'index.js': TOOLS }, NAMES, { callTimeoutMs: 1500, sandbox: NODE_ONLY });
  assert.equal((await p.call('ok')).content, 'ok ');
  const hung = p.call('spin');
  const beside = p.call('ok', { n: 'beside' });
  // The call that is waiting behind the spinning one cannot be answered by that process; it fails with it.
  await rejectsWith(beside, 'KW_ERR_PLUGIN_CRASHED', /^plugin hello: its process was killed because a call to spin did not answer in time$/);
  await rejectsWith(hung, 'KW_ERR_PLUGIN_TIMEOUT', /did not answer within 1500 ms/);
  // At once, before the old process has exited.
  assert.equal((await p.call('ok', { n: 'next' })).content, 'ok next');
  assert.deepEqual(p.proc.stats(), { restarts: 1, failures: 1, running: true });
});

test('a crash fails the call it happened in, with the exit code and the end of stderr; the next call works', async (t) => {
  const p = startTestPlugin(t, { 'index.js': TOOLS }, NAMES);
  await rejectsWith(p.call('die'), 'KW_ERR_PLUGIN_CRASHED', /^plugin hello: its process exited with code 3: about to die: x{10} during a call to die; it starts again at the next call$/);
  assert.deepEqual(p.failures.map((f) => [f.phase, codeOf(f.err)]), [['call', 'KW_ERR_PLUGIN_CRASHED']]);
  assert.equal((await p.call('ok', { n: 1 })).content, 'ok 1');
  assert.deepEqual(p.proc.stats(), { restarts: 1, failures: 1, running: true });
});

test('restarts are bounded: after 3 in 10 minutes the plugin is failed and starts no more processes', async (t) => {
  const p = startTestPlugin(t, { 'index.js': TOOLS }, NAMES);
  for (let i = 0; i < 4; i += 1) await rejectsWith(p.call('die'), 'KW_ERR_PLUGIN_CRASHED', /exited with code 3/);
  assert.deepEqual(p.proc.stats(), { restarts: 3, failures: 4, running: false });
  const failed = /^plugin hello failed 4 times and was restarted 3 times in 10 minutes; it is not started again until it is granted again or rescanned$/;
  await rejectsWith(p.call('ok'), 'KW_ERR_PLUGIN_FAILED', failed);
  await rejectsWith(p.call('ok'), 'KW_ERR_PLUGIN_FAILED', failed);
  assert.deepEqual(p.proc.stats(), { restarts: 3, failures: 5, running: false });
  assert.deepEqual(p.failures.map((f) => [f.phase, codeOf(f.err)]).at(-1), ['start', 'KW_ERR_PLUGIN_FAILED']);
});

test('the restart limit is per window of time, on the injected clock', async (t) => {
  let now = 1_000_000;
  const clock: Clock = { now: () => now };
  const p = startTestPlugin(t, { 'index.js': TOOLS }, NAMES, { clock, maxRestarts: 1, restartWindowMs: 60_000 });
  await rejectsWith(p.call('die'), 'KW_ERR_PLUGIN_CRASHED', /code 3/);
  await rejectsWith(p.call('die'), 'KW_ERR_PLUGIN_CRASHED', /code 3/); // the one restart of this window
  now += 60_001;
  assert.equal((await p.call('ok', { n: 3 })).content, 'ok 3');
  assert.deepEqual(p.proc.stats(), { restarts: 2, failures: 2, running: true });
});

test('a start that fails is reported with its phase and fails the calls that waited for it', async (t) => {
  const noExport = startTestPlugin(t, { 'index.js': TOOLS }, ['ok'], { tools: [{ name: 'gone', entry: 'index.js', export: 'notThere' }] });
  await rejectsWith(noExport.call('gone'), 'KW_ERR_PLUGIN_START', /^plugin hello: tool gone: file:\/\/.*\/index\.js exports no function notThere$/);
  assert.deepEqual(noExport.failures.map((f) => [f.phase, codeOf(f.err)]), [['start', 'KW_ERR_PLUGIN_START']]);

  const throws = startTestPlugin(t, { 'index.js': 'throw new Error("broken at load");' }, ['ok']);
  await rejectsWith(throws.call('ok'), 'KW_ERR_PLUGIN_START', /^plugin hello: tool ok: file:\/\/.*\/index\.js cannot be loaded: broken at load$/);

  const missing = startTestPlugin(t, {}, ['ok'], { tools: [{ name: 'ok', entry: 'lib/missing.js', export: 'ok' }] });
  await rejectsWith(missing.call('ok'), 'KW_ERR_PLUGIN_START', /lib\/missing\.js cannot be loaded/);
});

test('an answer larger than the limit fails its call and is counted; the process goes on', async (t) => {
  const p = startTestPlugin(t, { 'index.js': TOOLS }, NAMES, { maxResultBytes: 1000 });
  await rejectsWith(p.call('big'), 'KW_ERR_PLUGIN_RESULT_LIMIT', /more than the limit of 1000/);
  assert.equal((await p.call('ok')).content, 'ok ');
  assert.deepEqual(p.proc.stats(), { restarts: 0, failures: 1, running: true });
});

test("a tool's own error is its answer: KW_ERR_TOOL_FAILED, not a failure of the plugin", async (t) => {
  const p = startTestPlugin(t, { 'index.js': TOOLS }, NAMES);
  await rejectsWith(p.call('fails'), 'KW_ERR_TOOL_FAILED', /^plugin hello: tool fails: no such city: Atlantis$/);
  assert.deepEqual(p.proc.stats(), { restarts: 0, failures: 0, running: true });
});

test('a cancelled call is rejected at once and its tool sees its signal abort; stop fails what waits', async (t) => {
  const p = startTestPlugin(t, { 'index.js': TOOLS }, NAMES);
  const controller = new AbortController();
  const call = p.proc.call('wait', {}, controller.signal);
  await waitFor(() => p.proc.stats().running, 'the plugin to start');
  controller.abort(new Error('the turn was stopped'));
  await assert.rejects(call, /the turn was stopped/);
  // The plugin's process creates the file, then writes it: wait for its words, not for the file alone.
  const aborted = path.join(p.dataDir, 'aborted');
  await waitFor(() => fs.existsSync(aborted) && fs.readFileSync(aborted, 'utf8') !== '', 'the tool to see its signal abort');
  assert.equal(fs.readFileSync(aborted, 'utf8'), 'the call was cancelled');

  const waiting = p.call('wait');
  await p.proc.stop();
  await rejectsWith(waiting, 'KW_ERR_PLUGIN_STOPPED', /^plugin hello was stopped$/);
  await rejectsWith(p.call('ok'), 'KW_ERR_PLUGIN_STOPPED', /^plugin hello was stopped$/);
  assert.deepEqual(p.proc.stats(), { restarts: 0, failures: 0, running: false });
});

for (const how of ['node', 'machine'] as const) {
  test(`a plugin's process does not outlive its engine: SIGKILL the engine and the plugin exits (${how === 'node' ? 'Node only' : 'on this machine'})`, async (t) => {
    const p = startTestPlugin(t, { 'index.js': 'export async function pid() { return String(process.pid); }' }, ['pid']);
    await p.proc.stop();
    const mark = markProcesses(t);
    const engine = spawn(process.execPath, [...nodeArgsFor('testkit/engine-with-plugin.ts'), p.root, how], { cwd: REPO, stdio: ['ignore', 'pipe', 'inherit'] });
    cleanups(t)(() => engine.kill('SIGKILL'));
    let printed = '';
    engine.stdout.on('data', (chunk: Buffer) => { printed += chunk.toString(); });
    await waitFor(() => /^\d+\n/.test(printed), "the plugin's pid");
    // Its pid as it sees it: in its own PID namespace (under bwrap) that is not a pid of ours.
    const plugin = markedProcesses(mark, [engine.pid!]);
    assert.ok(plugin.some((m) => m.command.endsWith('plugin-host.mjs')), JSON.stringify(plugin));
    engine.kill('SIGKILL');
    await waitFor(() => markedProcesses(mark, [engine.pid!]).length === 0, 'the plugin to exit after its engine was killed', 5000);
  });
}
