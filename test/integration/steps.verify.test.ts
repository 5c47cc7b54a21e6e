import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import type { InputField } from '../../core/index.js';
import type { StepTask } from '../../steps/protocol.js';
import { createStepRunner } from '../../steps/runner.js';
import { comparable, kindInfo, makeHorde, makeStep, makeTask, runTask, tempDir } from '../fixtures/steps/build.js';
import { waitUntil } from '../fixtures/steps/wait.js';
import { cleanups } from '../../testkit/cleanup.js';

const runner = createStepRunner({ threads: 2, stopGraceMs: 300 });
after(() => runner.close());

const inputs: InputField[] = [{ id: 'name', type: 'text', label: 'Name', required: true }];

function verifyTask(runDir: string, verifyCommand: string, over: {
  isolation?: 'in_process' | 'process'; input?: Record<string, string>; verifyCwd?: string; outputBytes?: number;
} = {}): StepTask {
  const step = makeStep({ name: 'check', kind: 'verify', verifyCommand, output: 'checks/check.md', ...(over.verifyCwd === undefined ? {} : { verifyCwd: over.verifyCwd }) });
  return makeTask({
    horde: makeHorde([step], { inputs }), step: 'check', runDir, isolation: over.isolation ?? 'in_process', input: over.input ?? {},
    ...(over.outputBytes === undefined ? {} : { limits: { outputBytes: over.outputBytes } }),
  });
}

test('verify passes on exit 0 and fails on any other exit, the same in a thread and a child; the artifact tells the story', async (t) => {
  const cases = [
    { command: 'echo hello; echo careful >&2', outcome: 'pass', summary: 'exit 0' },
    { command: 'echo "2 tests failed"; exit 3', outcome: 'fail', summary: 'exit 3' },
  ];
  const dirs: string[] = [];
  const runs = await Promise.all(cases.flatMap((c) => (['in_process', 'process'] as const).map(async (isolation) => {
    const dir = tempDir(t);
    dirs.push(dir);
    const task = verifyTask(dir, c.command, { isolation });
    return { c, task, observed: await runTask(runner, task) };
  })));
  for (const { c, task, observed } of runs) {
    const { result, spawned } = observed;
    assert.equal(result.outcome, c.outcome);
    assert.equal(result.summary, c.summary);
    assert.equal(result.error, undefined, 'a failing command is an outcome, not an error');
    assert.equal(result.artifact, 'checks/check.md');
    assert.equal(spawned.length, 1);
    assert.equal(spawned[0]?.token, task.token);
    const md = fs.readFileSync(path.join(task.workdir, 'checks/check.md'), 'utf8');
    assert.match(md, new RegExp(`\\*\\*${c.outcome.toUpperCase()}\\*\\*`));
    assert.ok(md.includes(`- cwd: \`${task.workdir}\``));
    assert.match(md, /- duration: \d+ ms/);
    assert.ok(md.includes(`- command hash: \`${task.command?.hash ?? '?'}\``));
    assert.equal(fs.readFileSync(path.join(task.attemptDir, 'checks/check.md'), 'utf8'), md);
  }
  const pass = runs.filter((r) => r.c.outcome === 'pass');
  assert.ok(fs.readFileSync(path.join(pass[0]!.task.workdir, 'checks/check.md'), 'utf8').includes('## stderr (8 bytes)\n\n```text\ncareful\n```'));
  assert.deepEqual(comparable(pass[0]!.observed.result, ...dirs), comparable(pass[1]!.observed.result, ...dirs));
});

test('the command sees the allowlisted environment and the step identity, never the engine\'s secrets', async (t) => {
  process.env.ANTHROPIC_API_KEY = 'sk-kowalski-test-secret';
  cleanups(t)(() => delete process.env.ANTHROPIC_API_KEY);
  const runs = await Promise.all((['in_process', 'process'] as const).map(async (isolation) => {
    const task = verifyTask(tempDir(t), 'env > env.txt', { isolation });
    return { task, o: await runTask(runner, task) };
  }));
  for (const { task, o } of runs) {
    assert.equal(o.result.outcome, 'pass');
    const env = fs.readFileSync(path.join(task.workdir, 'env.txt'), 'utf8');
    assert.ok(!env.includes('sk-kowalski-test-secret'));
    assert.ok(env.includes(`KOWALSKI_STEP_TOKEN=${task.token}\n`));
    assert.ok(env.includes('KOWALSKI_STEP=check\n'));
    assert.ok(env.includes('KOWALSKI_ATTEMPT=1\n'));
    assert.ok(env.includes(`KOWALSKI_WORKDIR=${task.workdir}\n`));
    const names = env.trim().split('\n').map((l) => l.split('=')[0]).filter((n) => n !== 'PWD' && n !== 'SHLVL' && n !== '_');
    const allowed = new Set(['PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TERM', 'TMPDIR', 'SHELL',
      'KOWALSKI_RUN_ID', 'KOWALSKI_STEP', 'KOWALSKI_ATTEMPT', 'KOWALSKI_WORKDIR', 'KOWALSKI_STEP_TOKEN']);
    assert.deepEqual(names.filter((n) => n !== undefined && !allowed.has(n)), []);
  }
});

test('input values reach the shell as literal text, never as code', async (t) => {
  const nasty = `O'Brien; touch pwned; $(touch pwned2) \`touch pwned3\``;
  const task = verifyTask(tempDir(t), 'printf %s {{input.name}} > name.txt', { input: { name: nasty } });
  const { result } = await runTask(runner, task);
  assert.equal(result.outcome, 'pass');
  assert.equal(fs.readFileSync(path.join(task.workdir, 'name.txt'), 'utf8'), nasty);
  for (const f of ['pwned', 'pwned2', 'pwned3']) assert.equal(fs.existsSync(path.join(task.workdir, f)), false);
});

test('the command does not start before go(): the engine records the process group first', async (t) => {
  const task = verifyTask(tempDir(t), 'touch ran.txt');
  const marker = path.join(task.workdir, 'ran.txt');
  let recorded = -1;
  const handle = runner.start(task, kindInfo('verify'), {
    onSpawned: (pgid) => {
      recorded = pgid;
    },
    onProgress: () => undefined,
  }, { timeoutMs: 10_000 });
  await waitUntil('the step reported its process group', () => recorded > 0);
  await waitUntil('the gate waits on stdin', () => {
    try {
      const stat = fs.readFileSync(`/proc/${recorded}/stat`, 'utf8');
      return stat.slice(stat.lastIndexOf(')') + 2)[0] === 'S' && fs.readFileSync(`/proc/${recorded}/cmdline`, 'utf8').includes('kowalski-gate');
    } catch {
      return false;
    }
  });
  assert.equal(fs.existsSync(marker), false, 'the command ran before go()');
  handle.go();
  const result = await handle.result;
  assert.equal(result.outcome, 'pass');
  assert.equal(fs.existsSync(marker), true);
});

test('stdout and stderr are kept bounded, and the artifact says how much was dropped', async (t) => {
  const task = verifyTask(tempDir(t), 'i=0; while [ $i -lt 2000 ]; do echo "line $i of the noisy test output"; i=$((i+1)); done', { outputBytes: 2000 });
  const { result } = await runTask(runner, task);
  assert.equal(result.outcome, 'pass');
  const md = fs.readFileSync(path.join(task.workdir, 'checks/check.md'), 'utf8');
  assert.match(md, /## stdout \(\d+ bytes, \d+ dropped from the middle\)/);
  assert.ok(md.includes('line 0 of the noisy test output'));
  assert.ok(md.includes('line 1999 of the noisy test output'));
  assert.ok(!md.includes('line 1000 of the noisy test output'));
  assert.ok(md.length < 4000);
});

test('a command other than the approved one is refused and never runs', async (t) => {
  const task = verifyTask(tempDir(t), 'touch approved.txt');
  const tampered: StepTask = { ...task, step: { ...task.step, verifyCommand: 'touch tampered.txt' } };
  const { result, spawned } = await runTask(runner, tampered);
  assert.equal(result.outcome, 'fail');
  assert.equal(result.error?.code, 'KW_ERR_APPROVAL_MISMATCH');
  assert.equal(spawned.length, 0);
  assert.equal(fs.existsSync(path.join(task.workdir, 'tampered.txt')), false);
});

test('a verify_cwd that does not exist is KW_ERR_COMMAND_SPAWN pointing at verify_cwd', async (t) => {
  const task = verifyTask(tempDir(t), 'true', { verifyCwd: 'no/such/folder' });
  const { result } = await runTask(runner, task);
  assert.equal(result.error?.code, 'KW_ERR_COMMAND_SPAWN');
  assert.deepEqual(result.error?.where, { file: 'agents/check.md', key: 'verify_cwd' });
  assert.ok(result.error?.message.includes(path.join(task.workdir, 'no/such/folder')));
});
