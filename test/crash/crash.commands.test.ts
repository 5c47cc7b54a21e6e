/**
 * Commands die with their engine: SIGKILL a real engine process while a verify step's
 * command runs, in a pool thread (started by the engine's spawn helper) and in an
 * isolated child, and check that the command's process group ends at once instead of
 * finishing after its engine died, and that the spawn helper goes too. Again with the
 * command's parent stopped before the kill: the engine's lifeline alone ends it.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { acks, harness } from '../../testkit/crash/support.js';
import { isAlive } from '../../steps/leftovers.js';
import { processesWithToken, writeHorde } from '../support/engine.js';
import { tempDir } from '../../testkit/tmp.js';
import { waitUntil } from '../fixtures/steps/wait.js';
import { cleanups } from '../../testkit/cleanup.js';
import { readCommittedAt } from '../support/store-reader.js';

/** `pid:state` of every process in group `pgid` (zombies included, as `Z`). */
function groupMembers(pgid: number): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid) out.push(`${entry}:${state}`);
    } catch {
      // gone
    }
  }
  return out;
}

function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch {
    return false;
  }
}

for (const [isolation, parentStopped] of [['in_process', false], ['process', false], ['in_process', true], ['process', true]] as const) {
  const where = isolation === 'process' ? 'isolated child' : 'pool thread';
  // With its parent (the spawn helper, the isolated child) stopped, only the engine's lifeline can end the command.
  const name = parentStopped ? `${where}, the command's parent stopped: the lifeline alone` : where;
  test(`SIGKILL of the engine ends a running command at once (${name})`, async (t) => {
    const dir = tempDir(t);
    const home = path.join(dir, 'home');
    const ledger = path.join(dir, 'ledger');
    const parentFile = path.join(dir, 'parent');
    // Long enough that a command left running would still be running when the wait below gives up;
    // a SIGTERM would let it write `term` (no part of it may run once its engine is dead).
    const command = `trap 'echo term >> ${ledger}; exit 1' TERM; echo \\"$PPID $(tr '\\\\0' ' ' < /proc/$PPID/cmdline)\\" > ${parentFile}; ` +
      `${parentStopped ? 'kill -STOP $PPID; ' : ''}echo start >> ${ledger}; sleep 8 & wait; echo end >> ${ledger}`;
    const horde = writeHorde(path.join(dir, 'horde'), 'id = "sleepy"\npipeline = ["s"]\nconfirm_commands = false',
      { s: `kind = "verify"\nisolation = "${isolation}"\nverify_command = "${command}"` });
    let token = '';
    cleanups(t)(() => {
      for (const pid of token === '' ? [] : processesWithToken(token)) process.kill(pid, 'SIGKILL');
      if (parentStopped && fs.existsSync(parentFile)) {
        try {
          process.kill(Number(fs.readFileSync(parentFile, 'utf8').split(' ')[0]), 'SIGKILL');
        } catch {
          // gone
        }
      }
    });

    const run = await harness(home, ['start', horde, '1'], { killWhenFile: { file: ledger, contains: 'start' } });
    assert.equal(run.signal, 'SIGKILL', run.stderr);
    const killedAt = performance.now();
    const [runId] = acks(run);
    const [row] = await readCommittedAt<{ token: string; pgid: number }>(home, 'SELECT token, pgid FROM step_attempts WHERE run_id = ? AND attempt = 1', [runId]) as [{ token: string; pgid: number }];
    token = row.token;
    assert.ok(row.pgid > 0, 'the group was recorded before the command started');

    // Generous for a loaded machine; it takes a few ms.
    await waitUntil(`no live process is left in the command's group ${row.pgid}`,
      () => groupMembers(row.pgid).every((m) => m.endsWith(':Z')), 3000);
    const goneMs = Math.round(performance.now() - killedAt);
    const [parentPid, ...parentCmd] = fs.readFileSync(parentFile, 'utf8').trim().split(' ');
    // The command is dead; its stopped parent goes on now, notices its engine is gone and reaps the group.
    if (parentStopped) process.kill(Number(parentPid), 'SIGCONT');
    // The isolated child exits right after it has killed the group: wait for it too (bounded), rather than race it.
    await waitUntil('nothing holding the step token runs (the isolated child neither)', () => processesWithToken(token).length === 0, 3000);
    // Dead processes wait as zombies until init reaps them; then the group is gone.
    await waitUntil(`kill -0 -${row.pgid} fails`, () => !groupExists(row.pgid), 10_000);
    assert.deepEqual(fs.readFileSync(ledger, 'utf8').split('\n').filter(Boolean), ['start'], 'the command never finished');
    // Who started the command: the spawn helper for a pool thread, the step's child when isolated.
    assert.match(parentCmd.join(' '), isolation === 'process' ? /steps\/child\.[jt]s/ : /spawner-main\.[jt]s/);
    await waitUntil(`the command's parent ${parentPid} (${parentCmd.join(' ')}) is gone`, () => !isAlive(Number(parentPid)), 3000);
    t.diagnostic(`group ended ${goneMs} ms after the engine's exit was seen`);
  });
}
