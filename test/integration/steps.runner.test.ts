import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, describe, it, test } from 'node:test';
import type { TestContext } from 'node:test';
import { NO_MODEL_MESSAGE } from '../../steps/kinds/model.js';
import { findTokenProcesses } from '../../steps/leftovers.js';
import type { StepTask } from '../../steps/protocol.js';
import { createStepRunner } from '../../steps/runner.js';
import { comparable, kindInfo, makeHorde, makeStep, makeTask, runTask, tempDir } from '../fixtures/steps/build.js';
import type { Observed } from '../fixtures/steps/build.js';
import { waitUntil } from '../fixtures/steps/wait.js';
import { cleanups } from '../../testkit/cleanup.js';

const runner = createStepRunner({ threads: 2, stopGraceMs: 300 });
after(() => runner.close());

type Isolation = 'in_process' | 'process';
const BOTH: Isolation[] = ['in_process', 'process'];

function taskFor(runDir: string, kind: string, isolation: Isolation, over: { verifyCommand?: string } = {}): StepTask {
  const horde = makeHorde([makeStep({ name: 'work', kind, ...over })]);
  return makeTask({ horde, step: 'work', runDir, isolation });
}

/** The same step in a pool thread and in a child process, side by side. */
async function inBoth(t: TestContext, kind: string, over: { verifyCommand?: string } = {}): Promise<Observed[]> {
  return Promise.all(BOTH.map((isolation) => runTask(runner, taskFor(tempDir(t), kind, isolation, over))));
}

/**
 * Start a verify step whose command leaves a background job; once all of it runs,
 * cancel it — or, for a timeout, let the runner's timer fire. The timer runs from
 * start(), so on a busy machine the tree may not be up in time: then try again with a
 * longer timeout (bounded), so the stop always hits a running tree.
 */
async function stopWhileRunning(runDir: string, isolation: Isolation, how: 'cancel' | 'timeout'): Promise<{ task: StepTask; o: Observed; wasRunning: boolean }> {
  const timeouts = how === 'timeout' ? [1000, 3000, 9000] : [15_000];
  // A timeout gets a warm runner of its own, so no queue time counts against it.
  const own = how === 'timeout' ? createStepRunner({ threads: 1 }) : runner;
  if (own !== runner) await runTask(own, taskFor(runDir, 'noop', 'in_process'));
  try {
    let last: { task: StepTask; o: Observed; wasRunning: boolean } | undefined;
    for (const timeoutMs of timeouts) {
      const task = taskFor(runDir, 'verify', isolation, { verifyCommand: 'sleep 300 & sleep 300; wait' });
      let wasRunning = false;
      const handle = own.start(task, kindInfo('verify'), {
        onSpawned: () => {
          handle.go();
          void waitUntil('the shell and both sleeps run', () => findTokenProcesses(task.token).length >= 3, 20_000).then(() => {
            wasRunning = true;
            if (how === 'cancel') handle.cancel('the operator cancelled the run');
          }, () => undefined);
        },
        onProgress: () => undefined,
      }, { timeoutMs });
      last = { task, o: { result: await handle.result, spawned: [], progress: [] }, wasRunning };
      if (wasRunning) break;
    }
    if (last === undefined) throw new Error('no attempt ran');
    return last;
  } finally {
    if (own !== runner) await own.close();
  }
}

// Child processes start slowly under tsx: these run side by side.
describe('steps in both hosts', { concurrency: true }, () => {
  it('a step runs the same in a pool thread and in a child process, progress relayed in order', async (t) => {
    const [pool, child] = await inBoth(t, 'chatty');
    assert.deepEqual(pool?.result, { outcome: 'pass', summary: 'run-test/work#1' });
    assert.deepEqual(child?.result, pool?.result);
    assert.deepEqual(pool?.progress, ['one', 'two']);
    assert.deepEqual(child?.progress, ['one', 'two']);
  });

  it('a thrown coded error arrives as data with its code, message and where', async (t) => {
    const results = await inBoth(t, 'throws');
    for (const { result } of results) {
      assert.equal(result.outcome, 'fail');
      assert.equal(result.error?.code, 'KW_ERR_CONTEXT_MISSING');
      assert.equal(result.error?.message, 'step work cannot find notes.md');
      assert.deepEqual(result.error?.where, { file: 'notes.md' });
    }
    assert.deepEqual(comparable(results[0]!.result), comparable(results[1]!.result));
  });

  it('a worker or child that dies gives KW_ERR_STEP_CRASHED; the runner and pool keep working', async (t) => {
    // process.exit in a thread; an uncaught exception in a thread and in a child (the same end: no result).
    const runs = await Promise.all([
      runTask(runner, taskFor(tempDir(t), 'exit', 'in_process')),
      ...BOTH.map((isolation) => runTask(runner, taskFor(tempDir(t), 'uncaught', isolation))),
    ]);
    for (const { result } of runs) {
      assert.equal(result.outcome, 'fail');
      assert.equal(result.error?.code, 'KW_ERR_STEP_CRASHED', JSON.stringify(result));
      assert.equal(result.error?.retryable, true);
    }
    assert.match(runs[0]!.result.error?.message ?? '', /exited with code: 7/);
    // The thread's error, and the child's stderr, say what happened.
    for (const { result } of runs.slice(1)) assert.match(result.error?.message ?? '', /boom from a timer/);
    const { result: next } = await runTask(runner, taskFor(tempDir(t), 'noop', 'in_process'));
    assert.equal(next.outcome, 'pass', 'the pool replaced the dead thread');
  });

  it('a kind that returns no StepResult is a coded error, not a crash', async (t) => {
    const { result } = await runTask(runner, taskFor(tempDir(t), 'badresult', 'in_process'));
    assert.equal(result.error?.code, 'KW_ERR_STEP_KIND_MODULE');
    assert.match(result.error?.message ?? '', /returned \{"outcome":"maybe"\}/);
  });

  it('model kinds fail with KW_ERR_NO_MODEL', async (t) => {
    for (const { result } of await inBoth(t, 'process')) {
      assert.equal(result.error?.code, 'KW_ERR_NO_MODEL');
      assert.equal(result.error?.message, NO_MODEL_MESSAGE);
      assert.match(NO_MODEL_MESSAGE, /^no model provider configured: set \[model\] default in config\.toml/);
    }
  });

  it('cancel and timeout stop the whole process group: nothing holding the step token is left', async (t) => {
    // Cancel in both hosts; the timeout (the same stop, started by the runner's timer) in a pool thread.
    const runs = await Promise.all([
      ...BOTH.map((isolation) => stopWhileRunning(tempDir(t), isolation, 'cancel')),
      stopWhileRunning(tempDir(t), 'in_process', 'timeout'),
    ]);
    assert.deepEqual(runs.map(({ o }) => o.result.error?.code), ['KW_ERR_STEP_CANCELLED', 'KW_ERR_STEP_CANCELLED', 'KW_ERR_STEP_TIMEOUT']);
    for (const { task, o, wasRunning } of runs) {
      assert.equal(o.result.outcome, 'fail');
      assert.equal(wasRunning, true, 'the command tree ran before the stop');
      // Checked at once, not after a wait: the result is only given once they are gone.
      assert.deepEqual(findTokenProcesses(task.token), [], `left running after ${o.result.error?.code}`);
    }
    assert.match(runs[2]!.o.result.error?.message ?? '', /ran longer than its timeout of \d+ s/);
    assert.deepEqual(runs[2]!.o.result.error?.where, { file: 'agents/work.md', key: 'timeout_secs' });
  });

  it('a step that ignores cancel is killed with its thread or child, and its processes are swept', async (t) => {
    const runs = await Promise.all(BOTH.map(async (isolation) => {
      const task = taskFor(tempDir(t), 'stubborn', isolation);
      const handle = runner.start(task, kindInfo('stubborn'), {
        onSpawned: () => {
          handle.go();
          void waitUntil('the stubborn tree runs', () => findTokenProcesses(task.token).length >= 3).then(() => handle.cancel('stop now'));
        },
        onProgress: () => undefined,
      }, { timeoutMs: 15_000 });
      return { task, result: await handle.result };
    }));
    for (const { task, result } of runs) {
      assert.equal(result.error?.code, 'KW_ERR_STEP_CANCELLED');
      assert.match(result.error?.message ?? '', /stop now/);
      assert.deepEqual(findTokenProcesses(task.token), []);
    }
    const { result: again } = await runTask(runner, taskFor(tempDir(t), 'noop', 'in_process'));
    assert.equal(again.outcome, 'pass', 'the pool replaced the killed thread');
  });
});

describe('steps sharing a pool thread', () => {
  const quiet = { onSpawned: () => undefined, onProgress: () => undefined };

  it('one that ignores its cancel is stopped with its thread; the other on it ends interrupted, its command gone', async (t) => {
    const own = createStepRunner({ threads: 1, stepsPerThread: 2, stopGraceMs: 200 });
    cleanups(t)(() => own.close());
    const deaf = taskFor(tempDir(t), 'stubborn', 'in_process');
    const polite = taskFor(tempDir(t), 'verify', 'in_process', { verifyCommand: 'sleep 300 & sleep 300; wait' });
    const a = own.start(deaf, kindInfo('stubborn'), { ...quiet, onSpawned: () => a.go() }, { timeoutMs: 15_000 });
    const b = own.start(polite, kindInfo('verify'), { ...quiet, onSpawned: () => b.go() }, { timeoutMs: 15_000 });
    await waitUntil('both command trees run', () => findTokenProcesses(deaf.token).length >= 3 && findTokenProcesses(polite.token).length >= 3);
    a.cancel('stop now');
    const [ra, rb] = await Promise.all([a.result, b.result]);
    assert.equal(ra.error?.code, 'KW_ERR_STEP_CANCELLED');
    assert.equal(a.interrupted, false, 'the step that was stopped ends with its own result');
    assert.equal(b.interrupted, true, 'the step that shared its thread is interrupted, not failed');
    assert.match(rb.error?.message ?? '', /another step on the same thread/);
    assert.deepEqual(findTokenProcesses(deaf.token), []);
    assert.deepEqual(findTokenProcesses(polite.token), [], 'the interrupted step\'s command went with it');
    const { result: next } = await runTask(own, taskFor(tempDir(t), 'noop', 'in_process'));
    assert.equal(next.outcome, 'pass', 'the pool replaced the stopped thread');
  });

  it('a step cancelled while it waits for a thread ends at once and never begins', async (t) => {
    const own = createStepRunner({ threads: 1, stopGraceMs: 200 });
    cleanups(t)(() => own.close());
    const dir = tempDir(t);
    const deaf = taskFor(dir, 'stubborn', 'in_process');
    const a = own.start(deaf, kindInfo('stubborn'), { ...quiet, onSpawned: () => a.go() }, { timeoutMs: 60_000 });
    await waitUntil('the thread is taken', () => findTokenProcesses(deaf.token).length >= 3);
    const mark = `${dir}/began`;
    const waiting = own.start(taskFor(dir, 'verify', 'in_process', { verifyCommand: `touch ${mark}` }), kindInfo('verify'), quiet, { timeoutMs: 60_000 });
    waiting.cancel('not needed');
    assert.equal((await waiting.result).error?.code, 'KW_ERR_STEP_CANCELLED', 'over while the thread is still taken');
    assert.ok(findTokenProcesses(deaf.token).length >= 3, 'the step on the thread was left alone');
    a.cancel('done');
    await a.result;
    // The cancelled task leaves Piscina's queue before this one: by its end, the other has had its turn.
    const { result: next } = await runTask(own, taskFor(dir, 'noop', 'in_process'));
    assert.equal(next.outcome, 'pass');
    assert.equal(fs.existsSync(mark), false, 'the cancelled step never began');
  });
});

test('in-process steps reuse warm threads and load each kind module once per thread', async (t) => {
  const own = createStepRunner({ threads: 2 });
  cleanups(t)(() => own.close());
  const task = taskFor(tempDir(t), 'whereami', 'in_process');
  const info = kindInfo('whereami');
  const handlers = { onSpawned: () => undefined, onProgress: () => undefined };
  const n = 300;
  const started = performance.now();
  const seen: Array<{ threadId: number; pid: number; loads: number; runs: number }> = [];
  for (let i = 0; i < n; i += 1) {
    const { outcome, summary } = await own.start(task, info, handlers, { timeoutMs: 10_000 }).result;
    assert.equal(outcome, 'pass');
    seen.push(JSON.parse(summary ?? '{}') as (typeof seen)[number]);
  }
  const perStepMs = (performance.now() - started) / n;
  t.diagnostic(`a no-op step through the pool: ${(perStepMs * 1000).toFixed(0)} µs`);
  const threads = new Set(seen.map((s) => s.threadId));
  assert.ok(threads.size <= 2, `${threads.size} threads for ${n} steps`);
  assert.ok(!threads.has(0), 'steps ran off the main thread');
  assert.ok(seen.every((s) => s.pid === process.pid), 'in the engine process');
  assert.ok(seen.every((s) => s.loads === 1), 'the kind module was imported once per thread');
  assert.equal(seen.reduce((max, s) => Math.max(max, s.runs), 0) >= n / 2, true);
  // The time is reported, not asserted (it depends on the machine's load); bench/ measures it.
});

test('close() cancels what runs and refuses new steps', async (t) => {
  const own = createStepRunner({ threads: 1, stopGraceMs: 200 });
  const task = taskFor(tempDir(t), 'stubborn', 'in_process');
  let spawned = false;
  const handle = own.start(task, kindInfo('stubborn'), { onSpawned: () => { spawned = true; }, onProgress: () => undefined }, { timeoutMs: 15_000 });
  await waitUntil('the step reported its command', () => spawned);
  await own.close();
  const result = await handle.result;
  assert.equal(result.error?.code, 'KW_ERR_STEP_CANCELLED');
  assert.deepEqual(findTokenProcesses(task.token), []);
  const late = await own.start(task, kindInfo('noop'), { onSpawned: () => undefined, onProgress: () => undefined }, { timeoutMs: 1000 }).result;
  assert.equal(late.error?.code, 'KW_ERR_STEP_CANCELLED');
});
