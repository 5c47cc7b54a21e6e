/**
 * The spawn helper: a pool thread's command is started by the engine's small helper
 * process, not by forking the engine; an isolated step's command by its own child. When
 * the helper dies under a command, the command dies with it, the step fails with
 * KW_ERR_COMMAND_LOST, and the next command runs through a new helper.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { isAlive } from '../../steps/leftovers.js';
import { createStepRunner } from '../../steps/runner.js';
import { makeHorde, makeStep, makeTask, runTask, tempDir } from '../fixtures/steps/build.js';
import { waitUntil } from '../fixtures/steps/wait.js';

const runner = createStepRunner({ threads: 2, stopGraceMs: 300 });
after(() => runner.close());

function verifyTask(runDir: string, verifyCommand: string, isolation: 'in_process' | 'process' = 'in_process') {
  const step = makeStep({ name: 'check', kind: 'verify', verifyCommand, output: 'checks/check.md' });
  return makeTask({ horde: makeHorde([step]), step: 'check', runDir, isolation, input: {} });
}

/** `$PPID` of the command and that process's command line, as the command wrote them. */
function parentOf(file: string): { pid: number; cmdline: string } {
  const [pid, ...rest] = fs.readFileSync(file, 'utf8').trim().split(' ');
  return { pid: Number(pid), cmdline: rest.join(' ') };
}

const WRITE_PARENT = (file: string): string => `echo "$PPID $(tr '\\0' ' ' < /proc/$PPID/cmdline)" > ${file}`;

test('a pool thread\'s command is started by the spawn helper, an isolated step\'s by its own child, never by the engine', async (t) => {
  const dir = tempDir(t);
  const threadFile = path.join(dir, 'thread-parent');
  const childFile = path.join(dir, 'child-parent');
  const [inThread, inChild] = await Promise.all([
    runTask(runner, verifyTask(path.join(dir, 'a'), WRITE_PARENT(threadFile))),
    runTask(runner, verifyTask(path.join(dir, 'b'), WRITE_PARENT(childFile), 'process')),
  ]);
  assert.equal(inThread.result.outcome, 'pass', JSON.stringify(inThread.result));
  assert.equal(inChild.result.outcome, 'pass', JSON.stringify(inChild.result));
  const helper = parentOf(threadFile);
  assert.notEqual(helper.pid, process.pid);
  assert.match(helper.cmdline, /spawner-main\.[jt]s /, 'the command\'s parent is the spawn helper');
  const child = parentOf(childFile);
  assert.notEqual(child.pid, process.pid);
  assert.match(child.cmdline, /steps\/child\.[jt]s/, 'an isolated step starts its command itself');
  assert.ok(isAlive(helper.pid), 'the helper lives on for the next command');
});

test('killing the spawn helper mid-command kills the command and fails the step with KW_ERR_COMMAND_LOST; the next command runs through a new helper', async (t) => {
  const dir = tempDir(t);
  const parentFile = path.join(dir, 'parent');
  const pidFile = path.join(dir, 'pid');
  const ledger = path.join(dir, 'ledger');
  // `sleep` in the background so that `$!` is a process of the command's group we can watch.
  const command = `${WRITE_PARENT(parentFile)}; sleep 30 & echo $! > ${pidFile}; wait; echo end >> ${ledger}`;
  const running = runTask(runner, verifyTask(path.join(dir, 'a'), command));
  await waitUntil('the command has started', () => fs.existsSync(pidFile) && fs.readFileSync(pidFile, 'utf8').endsWith('\n'), 10_000);
  const helper = parentOf(parentFile);
  const sleeper = Number(fs.readFileSync(pidFile, 'utf8'));
  assert.match(helper.cmdline, /spawner-main/);
  process.kill(helper.pid, 'SIGKILL');

  const { result } = await running;
  assert.equal(result.outcome, 'fail');
  assert.equal(result.error?.code, 'KW_ERR_COMMAND_LOST', JSON.stringify(result));
  assert.match(result.error?.message ?? '', /spawn helper died/);
  await waitUntil('the command\'s processes are gone', () => !isAlive(sleeper), 3000);
  assert.equal(fs.existsSync(ledger), false, 'no part of the command ran on');

  const nextFile = path.join(dir, 'next-parent');
  const next = await runTask(runner, verifyTask(path.join(dir, 'b'), WRITE_PARENT(nextFile)));
  assert.equal(next.result.outcome, 'pass', JSON.stringify(next.result));
  const second = parentOf(nextFile);
  assert.match(second.cmdline, /spawner-main/, 'the next command went through a helper');
  assert.notEqual(second.pid, helper.pid, 'a new one');
});

test('when the spawn helper fails to start, the steps that were waiting for it run their commands themselves, at once', async (t) => {
  const own = createStepRunner({ threads: 3, spawnerEntry: new URL('../fixtures/steps/broken-helper.ts', import.meta.url).pathname });
  after(() => own.close());
  const dir = tempDir(t);
  const started = performance.now();
  // Three at once: each is handed the helper's address while it starts; some begin listening only after it failed.
  const runs = await Promise.all([0, 1, 2].map((i) => runTask(own, verifyTask(path.join(dir, `r${i}`), 'echo ran'))));
  const ms = performance.now() - started;
  for (const { result } of runs) assert.equal(result.outcome, 'pass', JSON.stringify(result));
  // A step that missed the helper's `down` used to wait out the 10 s it gives a starting helper.
  assert.ok(ms < 8000, `the commands ran after ${Math.round(ms)} ms`);
});
