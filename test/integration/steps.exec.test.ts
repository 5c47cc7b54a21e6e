import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { execCommand, GATE_CLOSED_EXIT, GATE_SCRIPT } from '../../steps/exec.js';
import { findTokenProcesses, waitUntilNoneLeft } from '../../steps/leftovers.js';
import type { CommandSpec } from '../../steps/protocol.js';
import { processGroupOf } from '../support/engine.js';
import { tempDir } from '../fixtures/steps/build.js';
import { waitUntil } from '../fixtures/steps/wait.js';

/** The token's processes that are `sleep` (the gate's sentinel carries the token too, so a count of all of them is no sign the command got going). */
function sleepsOf(token: string): number {
  return findTokenProcesses(token).filter((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').startsWith('sleep\0');
    } catch {
      return false;
    }
  }).length;
}

function sh(script: string, cwd: string): CommandSpec {
  return { argv: ['/bin/sh', '-c', script], cwd, env: ['PATH', 'KOWALSKI_STEP_TOKEN'] };
}

function envWith(token: string): Record<string, string> {
  return { PATH: process.env.PATH ?? '/usr/bin:/bin', KOWALSKI_STEP_TOKEN: token };
}

/** True while the gate (not yet the command) is the leader and it is blocked reading stdin. */
function gateIsWaiting(pid: number): boolean {
  try {
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return cmdline.includes('kowalski-gate') && stat.slice(stat.lastIndexOf(')') + 2)[0] === 'S';
  } catch {
    return false;
  }
}

test('the gate holds the command until the process group is recorded, then runs it', async (t) => {
  const dir = tempDir(t);
  const marker = path.join(dir, 'ran');
  const token = crypto.randomBytes(8).toString('hex');
  let seenPgid = 0;
  const result = await execCommand(sh(`touch ${marker}; echo done`, dir), {
    env: envWith(token),
    signal: new AbortController().signal,
    outputBytes: 4096,
    spawned: async (pgid) => {
      seenPgid = pgid;
      // The group exists and the command is parked in the gate, not running.
      await waitUntil('the gate blocks on stdin', () => gateIsWaiting(pgid));
      assert.equal(fs.existsSync(marker), false, 'the command ran before go');
      assert.equal(findTokenProcesses(token).includes(pgid), true, 'the gate carries the step token');
    },
  });
  assert.ok(seenPgid > 0);
  assert.equal(result.pgid, seenPgid);
  assert.equal(result.started, true);
  assert.equal(result.exitCode, 0);
  assert.equal(result.stdout.text, 'done\n');
  assert.equal(fs.existsSync(marker), true);
});

test('a gate whose stdin closes without go exits 125 and never runs the command', async (t) => {
  const dir = tempDir(t);
  const marker = path.join(dir, 'ran');
  // The engine died before recording the group: its end of the pipe closes.
  const child = spawn('/bin/sh', ['-c', GATE_SCRIPT, 'kowalski-gate', '/bin/sh', '-c', `touch ${marker}`], { cwd: dir, stdio: ['pipe', 'ignore', 'ignore', 'pipe'] });
  child.stdin?.end();
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  child.stdio[3]?.destroy(); // lets the gate's sentinel go
  assert.equal(code, GATE_CLOSED_EXIT);
  assert.equal(fs.existsSync(marker), false);

  // The same through exec: recording fails, so go is never sent.
  const result = await execCommand(sh(`touch ${marker}`, dir), {
    env: envWith('t'),
    signal: new AbortController().signal,
    outputBytes: 1024,
    spawned: () => Promise.reject(new Error('the engine could not record the group')),
  });
  assert.equal(result.started, false);
  assert.equal(fs.existsSync(marker), false);
});

test('output is captured bounded: the first and last part, with the dropped byte count', async (t) => {
  const dir = tempDir(t);
  // 5000 lines of 10 bytes on stdout; a short line on stderr.
  const script = 'i=0; while [ $i -lt 5000 ]; do printf "line %04d\\n" $i; i=$((i+1)); done; echo oops >&2; exit 3';
  const result = await execCommand(sh(script, dir), {
    env: envWith('t'), signal: new AbortController().signal, outputBytes: 1000, spawned: () => Promise.resolve(),
  });
  assert.equal(result.exitCode, 3);
  assert.equal(result.stdout.totalBytes, 50_000);
  assert.equal(result.stdout.droppedBytes, 49_000);
  assert.ok(result.stdout.text.startsWith('line 0000\nline 0001\n'));
  assert.ok(result.stdout.text.endsWith('line 4998\nline 4999\n'));
  assert.match(result.stdout.text, /\[… 49000 bytes dropped …\]/);
  assert.equal(result.stderr.text, 'oops\n');
  assert.equal(result.stderr.droppedBytes, 0);
});

test('abort kills the whole process group, background jobs included', async (t) => {
  const dir = tempDir(t);
  const token = crypto.randomBytes(8).toString('hex');
  const controller = new AbortController();
  const running = execCommand(sh('sleep 300 & sleep 300; wait', dir), {
    env: envWith(token), signal: controller.signal, outputBytes: 1024, spawned: () => Promise.resolve(), killGraceMs: 500,
  });
  await waitUntil('both sleeps run', () => sleepsOf(token) >= 2);
  controller.abort();
  const result = await running;
  assert.equal(result.aborted, true);
  assert.equal(result.signal, 'SIGTERM');
  assert.equal(await waitUntilNoneLeft(token, 2000), true, `left running: ${findTokenProcesses(token).join(', ')}`);
});

test('a missing working folder is a clear KW_ERR_COMMAND_SPAWN', async (t) => {
  const dir = tempDir(t);
  await assert.rejects(
    execCommand(sh('true', path.join(dir, 'nope')), {
      env: envWith('t'), signal: new AbortController().signal, outputBytes: 1024, spawned: () => Promise.resolve(),
    }),
    (err: Error & { code?: string }) => err.code === 'KW_ERR_COMMAND_SPAWN' && err.message.includes(path.join(dir, 'nope')),
  );
});

test('a command that ignores SIGTERM is SIGKILLed after the grace period', async (t) => {
  const dir = tempDir(t);
  const token = crypto.randomBytes(8).toString('hex');
  const controller = new AbortController();
  // An ignored signal stays ignored in the children too.
  const running = execCommand(sh(`trap '' TERM; sleep 300 & wait; wait`, dir), {
    env: envWith(token), signal: controller.signal, outputBytes: 1024, spawned: () => Promise.resolve(), killGraceMs: 100,
  });
  // The sleep runs, so the shell has run its trap.
  await waitUntil('the sleep runs', () => sleepsOf(token) >= 1);
  controller.abort();
  const result = await running;
  assert.equal(result.aborted, true);
  assert.equal(result.signal, 'SIGKILL');
  assert.equal(await waitUntilNoneLeft(token, 2000), true);
});

test('the gate leaves a sentinel in the group, which ends with it; the command runs without the sentinel\'s fd 3', async (t) => {
  const dir = tempDir(t);
  const token = crypto.randomBytes(8).toString('hex');
  let sentinelSeen = false;
  const result = await execCommand(sh('if [ -e /proc/$$/fd/3 ]; then echo open; else echo closed; fi', dir), {
    env: envWith(token),
    signal: new AbortController().signal,
    outputBytes: 1024,
    spawned: async (pgid) => {
      // The gate and its sentinel (double-forked, so not the gate's child) are in the group.
      await waitUntil('the sentinel runs', () => findTokenProcesses(token).some((pid) => pid !== pgid && processGroupOf(pid) === pgid));
      sentinelSeen = true;
    },
  });
  assert.equal(sentinelSeen, true);
  assert.equal(result.exitCode, 0);
  assert.equal(result.stdout.text, 'closed\n');
  assert.equal(await waitUntilNoneLeft(token, 2000), true, 'the sentinel ended with the group');
});
