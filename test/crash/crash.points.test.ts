/**
 * Durability: SIGKILL at every named crash point and at random while runs are in
 * flight, restart, and check the invariants against a ledger the steps write outside
 * the engine.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { acks, checkInvariants, harness, readLedger, writeLedgerHorde } from '../../testkit/crash/support.js';
import { tempDir } from '../../testkit/tmp.js';
import { processGroupOf, processesWithToken } from '../support/engine.js';
import { waitUntil } from '../fixtures/steps/wait.js';
import { cleanups } from '../../testkit/cleanup.js';
import { readCommittedAt } from '../support/store-reader.js';
import { onPostgres } from '../../testkit/pg-store.js';

const POINTS: [string, number][] = [
  ['before-commit', 1], ['before-commit', 4], ['after-commit', 1], ['after-commit', 6],
  ['after-dispatch', 1], ['after-dispatch', 5], ['before-result-commit', 1], ['before-result-commit', 7],
];

/** On Postgres (pg.crash.points) each point is killed at once, at its later hit: every point, in about a third of the time. */
const ON_POSTGRES_TOO = new Set(['before-commit:4', 'after-commit:6', 'after-dispatch:5', 'before-result-commit:7']);
const SUBSET = 'on Postgres one hit of each point runs (the later one), to keep CI time modest; every hit runs on SQLite';

describe('named crash points', () => {
  for (const [point, k] of POINTS) {
    const skip = onPostgres() && !ON_POSTGRES_TOO.has(`${point}:${k}`) && SUBSET;
    test(`kill -9 at ${point} (hit ${k}), restart: nothing acknowledged is lost, no finished step runs again`, { skip }, async (t) => {
      const dir = tempDir(t);
      const home = path.join(dir, 'home');
      const ledgerFile = path.join(dir, 'ledger');
      const horde = writeLedgerHorde(dir);
      const env = { KW_LEDGER: ledgerFile };
      const first = await harness(home, ['start', horde, '4'], { env: { ...env, KOWALSKI_CRASH_AT: `${point}:${k}` } });
      assert.equal(first.signal, 'SIGKILL', `the crash point was reached (exit ${first.code}, ${first.stderr})`);
      const acked = acks(first);
      const second = await harness(home, ['resume'], { env });
      assert.equal(second.code, 0, second.stderr);
      assert.ok(second.lines.includes('IDLE'));
      const { runs } = checkInvariants(home, acked, readLedger(ledgerFile));
      assert.ok(runs >= acked.length);
    });
  }
});

test('random kill -9 while 50 runs are in flight, five times over, then a clean restart', { skip: onPostgres() && 'on Postgres the named points run, not the random kills, to keep CI time modest (about 30 s more); they run on SQLite' }, async (t) => {
  const dir = tempDir(t);
  const home = path.join(dir, 'home');
  const ledgerFile = path.join(dir, 'ledger');
  const horde = writeLedgerHorde(dir);
  const env = { KW_LEDGER: ledgerFile, KW_LEDGER_DELAY_MS: '40' };
  const acked = new Set<string>();
  let kills = 0;
  // Each kill lands at a random moment after the process got going (a slow start-up, say a cold tsx cache in CI, would otherwise eat the whole delay).
  const first = await harness(home, ['start', horde, '50'], { env, killAfterLine: { line: (l) => l.startsWith('ACK '), ms: Math.floor(Math.random() * 500) } });
  for (const id of acks(first)) acked.add(id);
  if (first.signal === 'SIGKILL') kills++;
  for (let i = 0; i < 5; i++) {
    const r = await harness(home, ['resume'], { env, killAfterLine: { line: (l) => l.startsWith('RECOVERED '), ms: Math.floor(Math.random() * 700) } });
    if (r.signal === 'SIGKILL') kills++;
  }
  const last = await harness(home, ['resume'], { env, limitMs: 120_000 });
  assert.equal(last.code, 0, last.stderr);
  assert.ok(kills >= 1, 'at least one kill landed mid-flight');
  assert.ok(acked.size > 0, 'the first process acknowledged runs before it was killed');
  const { runs, reruns } = checkInvariants(home, acked, readLedger(ledgerFile));
  assert.ok(runs >= acked.size);
  t.diagnostic(`${kills} kills, ${acked.size} acknowledged, ${runs} runs, ${reruns} interrupted attempts re-run`);
});

test('a step that is not safe to repeat (apply-like) parks with outcome unknown after a crash, and stays parked', async (t) => {
  const dir = tempDir(t);
  const home = path.join(dir, 'home');
  const ledgerFile = path.join(dir, 'ledger');
  const horde = writeLedgerHorde(dir, 'ledger_unsafe');
  const env = { KW_LEDGER: ledgerFile };
  const first = await harness(home, ['start', horde, '1'], { env: { ...env, KOWALSKI_CRASH_AT: 'after-dispatch:1' } });
  assert.equal(first.signal, 'SIGKILL');
  const second = await harness(home, ['resume'], { env });
  const summary = JSON.parse(second.lines.find((l) => l.startsWith('RECOVERED '))!.slice(10)) as { outcomeUnknown: { runId: string; step: string }[] };
  assert.equal(summary.outcomeUnknown.length, 1, 'recovery reports the step whose outcome is unknown');
  const { runId, step } = summary.outcomeUnknown[0]!;
  assert.equal(step, 'a');
  assert.ok(second.lines.includes(`DONE ${runId} awaiting_input`), second.lines.join('\n'));
  const third = await harness(home, ['resume'], { env });
  const recovered = JSON.parse(third.lines.find((l) => l.startsWith('RECOVERED '))!.slice(10)) as { resumed: string[]; parked: number };
  assert.deepEqual([recovered.resumed.length, recovered.parked], [0, 1], 'a parked run is not loaded on restart');
  // The operator decides: approve runs it again as a new attempt.
  const approved = await harness(home, ['approve', runId], { env });
  assert.ok(approved.lines.includes(`DONE ${runId} succeeded`), approved.lines.join('\n') + approved.stderr);
  const ledger = readLedger(ledgerFile);
  assert.deepEqual(ledger.get(`${runId}/a`)?.slice(-1), [2], 'the approved retry is attempt 2');
});

test('a crash while an approved command runs: what escaped its process group is killed before the retry', async (t) => {
  const dir = tempDir(t);
  const home = path.join(dir, 'home');
  const marks = path.join(dir, 'marks');
  const h = path.join(dir, 'horde');
  fs.mkdirSync(path.join(h, 'agents'), { recursive: true });
  fs.writeFileSync(path.join(h, 'horde.md'), '---\nid = "sleepy"\npipeline = ["s"]\nconfirm_commands = false\n---\n');
  // Attempt 1 starts a process in a session of its own (out of reach of the group's sentinel), then waits.
  const escape = `setsid sh -c 'echo escaped >> ${marks}; exec sleep 300' &`;
  fs.writeFileSync(path.join(h, 'agents', 's.md'), `---\nname = "s"\nkind = "verify"\nverify_command = "echo start $KOWALSKI_ATTEMPT >> ${marks}; if [ $KOWALSKI_ATTEMPT = 1 ]; then ${escape} sleep 300; fi; echo done $KOWALSKI_ATTEMPT >> ${marks}"\n---\n`);
  const first = await harness(home, ['start', h, '1'], { killWhenFile: { file: marks, contains: 'escaped' } });
  assert.equal(first.signal, 'SIGKILL');
  const [runId] = acks(first);
  const [{ token, pgid }] = await readCommittedAt<{ token: string; pgid: number }>(home, 'SELECT token, pgid FROM step_attempts WHERE run_id = ? AND attempt = 1', [runId]) as [{ token: string; pgid: number }];
  cleanups(t)(() => {
    for (const pid of processesWithToken(token)) process.kill(pid, 'SIGKILL');
  });
  // The group died with the engine; only the escaped process is left.
  await waitUntil('only what left the group still runs', () => {
    const left = processesWithToken(token);
    return left.length === 1 && processGroupOf(left[0]!) !== pgid;
  });
  const second = await harness(home, ['resume'], {});
  const recovered = JSON.parse(second.lines.find((l) => l.startsWith('RECOVERED '))!.slice(10)) as { killedProcesses: number; retried: unknown[] };
  assert.equal(recovered.killedProcesses, 1);
  assert.equal(recovered.retried.length, 1);
  assert.deepEqual(processesWithToken(token), [], 'nothing of the interrupted attempt is left');
  assert.ok(second.lines.includes(`DONE ${runId} succeeded`));
  assert.deepEqual(fs.readFileSync(marks, 'utf8').trim().split('\n'), ['start 1', 'escaped', 'start 2', 'done 2']);
});
