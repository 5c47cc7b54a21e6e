import assert from 'node:assert/strict';
import { fork } from 'node:child_process';
import { test } from 'node:test';
import { findTokenProcesses, waitUntilNoneLeft } from '../../steps/leftovers.js';
import type { ChildInbound, StepMessage } from '../../steps/protocol.js';
import { thisBuild } from '../../steps/own-code.js';
import { builtinStepKinds } from '../../steps/registry.js';
import { makeHorde, makeStep, makeTask, tempDir } from '../fixtures/steps/build.js';
import { waitUntil } from '../fixtures/steps/wait.js';
import { cleanups } from '../../testkit/cleanup.js';

test('an isolated child whose engine goes away (IPC disconnects) stops its command tree and exits', async (t) => {
  const horde = makeHorde([makeStep({ name: 'check', kind: 'verify', verifyCommand: 'sleep 300 & sleep 300; wait', isolation: 'process' })]);
  const task = makeTask({ horde, step: 'check', runDir: tempDir(t) });
  const child = fork(thisBuild().file('steps/child'), [], { execArgv: process.execArgv, detached: true, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  cleanups(t)(() => {
    for (const pid of findTokenProcesses(task.token)) process.kill(pid, 'SIGKILL');
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const messages: StepMessage[] = [];
  child.on('message', (message: StepMessage) => {
    messages.push(message);
    if (message.type === 'spawned') child.send({ type: 'go' } satisfies ChildInbound);
  });
  const module = builtinStepKinds().get('verify')?.module ?? '';
  child.send({ type: 'task', task, kindModule: module } satisfies ChildInbound);

  await waitUntil('the command tree runs', () => findTokenProcesses(task.token).length >= 3, 10_000);
  assert.ok(messages.some((m) => m.type === 'spawned'));
  child.disconnect(); // what a dying engine looks like from the child
  assert.equal(await exited, 1);
  assert.equal(await waitUntilNoneLeft(task.token, 2000), true, `left running: ${findTokenProcesses(task.token).join(', ')}`);
  assert.equal(messages.some((m) => m.type === 'done'), false, 'nobody was left to tell');
});
