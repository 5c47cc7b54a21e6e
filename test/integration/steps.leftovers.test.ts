import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { findTokenProcesses, isAlive, killLeftovers } from '../../steps/leftovers.js';
import { waitUntil } from '../fixtures/steps/wait.js';
import { cleanups } from '../../testkit/cleanup.js';

/** Start a tree the way a step's command would, then forget it (as a crashed engine would). */
function startTree(token: string, script: string): number {
  const child = spawn('/bin/sh', ['-c', script], {
    detached: true,
    stdio: 'ignore',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', KOWALSKI_STEP_TOKEN: token },
  });
  child.unref();
  return child.pid ?? -1;
}

test('killLeftovers finds every process holding the token, also outside the group, and kills them', async (t) => {
  const token = crypto.randomBytes(8).toString('hex');
  const other = crypto.randomBytes(8).toString('hex');
  // A shell with a background job and a foreground job, plus one that left the group (setsid).
  const pgid = startTree(token, 'sleep 300 & setsid sleep 301 & sleep 302; wait');
  // Another step's command must survive.
  const bystander = startTree(other, 'sleep 303');
  cleanups(t)(() => {
    for (const pid of [...findTokenProcesses(token), ...findTokenProcesses(other)]) process.kill(pid, 'SIGKILL');
  });
  const outsideGroup = (pid: number): boolean => {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pgid;
    } catch {
      return false;
    }
  };
  // `setsid` forks inside the group and leaves it a moment later: wait for that too.
  await waitUntil('the tree (one process outside its group) and the bystander run', () => {
    const pids = findTokenProcesses(token);
    return pids.length === 4 && pids.some(outsideGroup) && isAlive(bystander);
  });
  const before = findTokenProcesses(token);

  const killed = await killLeftovers({ pgid, token });

  assert.equal(killed, 4);
  assert.deepEqual(findTokenProcesses(token), []);
  for (const pid of before) assert.equal(isAlive(pid), false, `pid ${pid} still alive`);
  assert.equal(isAlive(bystander), true, 'a process of another step was killed');
});

test('killLeftovers on a token nothing holds kills nothing', async () => {
  assert.equal(await killLeftovers({ token: crypto.randomBytes(8).toString('hex') }), 0);
});

test('without /proc it falls back to killing the process group', async (t) => {
  const token = crypto.randomBytes(8).toString('hex');
  const pgid = startTree(token, 'sleep 300 & sleep 301; wait');
  cleanups(t)(() => {
    for (const pid of findTokenProcesses(token)) process.kill(pid, 'SIGKILL');
  });
  await waitUntil('the tree runs', () => findTokenProcesses(token).length === 3);
  const noProc = fs.mkdtempSync(path.join(os.tmpdir(), 'kw-'));
  cleanups(t)(() => fs.rmSync(noProc, { recursive: true, force: true }));
  assert.equal(await killLeftovers({ pgid, token, procDir: noProc, waitMs: 100 }), 1);
  await waitUntil('the group is gone', () => findTokenProcesses(token).length === 0, 2000);
});
