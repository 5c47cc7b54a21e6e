/**
 * Run budgets through the whole engine: model steps against a fake Ollama spend tokens and
 * model calls (counted from their traces), a gate step lets a simulated clock spend wall
 * time; crossing a limit parks the run before its next step, a raise lets it go on, a
 * cancel ends it, and a restart on the same folder keeps the spent amounts and the park.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { DEFAULT_CONFIG, createEngine } from '../../engine/index.js';
import type { Engine } from '../../engine/index.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeModelServer } from '../../testkit/fake-models.js';
import { TEST_KINDS, writeHorde } from '../support/engine.js';
import { simulatedTime } from '../support/sim-time.js';
import { ANSWER, writeModelConfig, writeModelHorde } from '../support/budget.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';
import { testOwnCode } from '../../testkit/dist.js';

async function modelEngine(t: TestContext, home: string, server: FakeModelServer, extraConfig = ''): Promise<Engine> {
  writeModelConfig(home, server.url, extraConfig);
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  cleanups(t)(() => engine.close());
  return engine;
}

const modelHorde = writeModelHorde;

async function start(engine: Engine, id: string): Promise<string> {
  const { horde } = await engine.resolveHorde(id);
  return engine.startRun(horde, { topic: 'x' });
}

function startedSteps(engine: Engine, runId: string): string[] {
  return engine.events(runId).flatMap(({ event }) => (event.type === 'step.started' ? [event.step] : []));
}

test('tokens: the run parks before the step that would cross the limit, showing what it spent; a raise lets it finish', async (t) => {
  const server = await startFakeOllama(() => ANSWER);
  cleanups(t)(() => server.close());
  const home = tempDir(t, 'kw-budget-');
  const engine = await modelEngine(t, home, server);
  modelHorde(home, 'tok', '[budget]\ntokens = 200');
  const runId = await start(engine, 'tok');
  assert.equal(await engine.waitForRun(runId), 'awaiting_input');
  // a spent 150 (< 200), so b started; after b, 300 ≥ 200: c waits.
  assert.deepEqual(startedSteps(engine, runId), ['intake', 'a', 'b']);
  const view = engine.getRun(runId);
  assert.equal(view.run.state, 'awaiting_input');
  assert.deepEqual(view.budget.limits, { tokens: 200 });
  assert.deepEqual(view.budget.parked?.over, ['tokens']);
  assert.equal(view.budget.parked?.spent.tokens, 300);
  assert.equal(view.budget.spent.model_calls, 2);
  assert.equal(view.budget.spent.cost_usd, 0);
  assert.equal(view.pending.length, 0, 'no step approval is asked: the run itself waits');
  const parked = engine.events(runId).find((e) => e.event.type === 'budget.exceeded')!.event;
  assert.deepEqual(parked.type === 'budget.exceeded' ? parked.spent : undefined, {
    model_calls: 2, tokens: 300, cost_usd: 0, tool_calls: 0, wall_secs: view.budget.parked!.spent.wall_secs, unpriced: 0,
  });

  // A raise that leaves the limit spent is refused, naming it.
  await assert.rejects(engine.raiseBudget(runId, { tokens: 300 }), (err: { code: string; message: string }) => {
    assert.equal(err.code, 'KW_ERR_BUDGET_TOO_LOW');
    assert.match(err.message, /tokens 300 of 300/);
    return true;
  });
  await assert.rejects(engine.raiseBudget(runId, { tokns: 900 }), { code: 'KW_ERR_BUDGET_INVALID', message: /tokns is not a limit/ });
  await assert.rejects(engine.raiseBudget(runId, { tokens: 0 }), { code: 'KW_ERR_BUDGET_INVALID', message: /tokens must be a whole number/ });
  const raised = await engine.raiseBudget(runId, { tokens: 1000 }, { by: 'ops' });
  assert.deepEqual(raised.limits, { tokens: 1000 });
  assert.equal(raised.parked, null);
  assert.equal(await engine.waitForRun(runId), 'succeeded');
  assert.deepEqual(startedSteps(engine, runId), ['intake', 'a', 'b', 'c']);
  assert.equal(engine.getRun(runId).budget.spent.tokens, 450);
  const last = engine.events(runId).find((e) => e.event.type === 'budget.raised')!.event;
  assert.deepEqual(last, { type: 'budget.raised', limits: { tokens: 1000 }, by: 'ops' });
  await assert.rejects(engine.raiseBudget(runId, { tokens: 5000 }), { code: 'KW_ERR_RUN_FINISHED' });
});

test('model calls from config.toml: parked after the first model step; cancel ends the run', async (t) => {
  const server = await startFakeOllama(() => ANSWER);
  cleanups(t)(() => server.close());
  const home = tempDir(t, 'kw-budget-');
  const engine = await modelEngine(t, home, server, '[budget]\nmodel_calls = 1\ntokens = 100000\n');
  modelHorde(home, 'calls', '');
  const runId = await start(engine, 'calls');
  assert.equal(await engine.waitForRun(runId), 'awaiting_input');
  assert.deepEqual(startedSteps(engine, runId), ['intake', 'a']);
  assert.deepEqual(engine.getRun(runId).budget.parked?.over, ['model_calls']);
  assert.deepEqual(engine.getRun(runId).budget.limits, { model_calls: 1, tokens: 100000 });
  await engine.cancel(runId);
  assert.equal(engine.getRun(runId).run.state, 'cancelled');
  assert.equal(server.requests.length, 1);
});

test("a horde's [budget] wins over config.toml's key by key", async (t) => {
  const server = await startFakeOllama(() => ANSWER);
  cleanups(t)(() => server.close());
  const home = tempDir(t, 'kw-budget-');
  const engine = await modelEngine(t, home, server, '[budget]\nmodel_calls = 1\n');
  modelHorde(home, 'wide', '[budget]\nmodel_calls = 10');
  const runId = await start(engine, 'wide');
  assert.equal(await engine.waitForRun(runId), 'succeeded');
  assert.deepEqual(engine.getRun(runId).budget.limits, { model_calls: 10 });
  assert.equal(engine.getRun(runId).budget.spent.model_calls, 3);
});

test('a restart keeps the spent amounts and the park; the raise on the new engine lets the run finish', async (t) => {
  const server = await startFakeOllama(() => ANSWER);
  cleanups(t)(() => server.close());
  const home = tempDir(t, 'kw-budget-');
  const first = await modelEngine(t, home, server);
  modelHorde(home, 'again', '[budget]\nmodel_calls = 2');
  const runId = await start(first, 'again');
  assert.equal(await first.waitForRun(runId), 'awaiting_input');
  const before = first.getRun(runId).budget;
  await first.close();

  const second = await modelEngine(t, home, server);
  const summary = await second.recover();
  assert.equal(summary.resumed.length, 0, 'a parked run is not loaded');
  const after = second.getRun(runId);
  assert.equal(after.run.state, 'awaiting_input');
  assert.deepEqual(after.budget.parked, before.parked);
  assert.equal(after.budget.spent.model_calls, 2);
  assert.equal(after.budget.spent.tokens, 300);
  // Raising model_calls to 2 again is still refused: the spent calls were counted from the traces, not from memory.
  await assert.rejects(second.raiseBudget(runId, { model_calls: 2 }), { code: 'KW_ERR_BUDGET_TOO_LOW' });
  await second.raiseBudget(runId, { model_calls: 3 });
  assert.equal(await second.waitForRun(runId), 'succeeded');
  assert.deepEqual(startedSteps(second, runId), ['intake', 'a', 'b', 'c']);
});

test('wall time, on the engine clock: a run held past wall_secs parks before its next step; raising it lets the run go on', async (t) => {
  const home = tempDir(t, 'kw-budget-');
  const time = simulatedTime(Date.UTC(2026, 0, 5, 9, 0, 0));
  const engine = await createEngine({ ownCode: testOwnCode(),
    dataDir: home, clock: time.clock, timers: time.timers, extraStepKinds: TEST_KINDS,
    config: { ...DEFAULT_CONFIG, budget: { wall_secs: 60 } },
  });
  cleanups(t)(() => engine.close());
  const gate = path.join(home, 'gate-open');
  writeHorde(path.join(home, 'hordes', 'slow'), 'id = "slow"\npipeline = ["hold", "after"]', {
    hold: 'kind = "gate"\n[[inputs]]\nid = "gate"\ntype = "text"', after: 'kind = "noop"',
  });
  const { horde } = await engine.resolveHorde('slow');
  const runId = await engine.startRun(horde, { gate });
  time.advanceTo(Date.UTC(2026, 0, 5, 9, 2, 0)); // two minutes while `hold` runs
  fs.writeFileSync(gate, '');
  assert.equal(await engine.waitForRun(runId), 'awaiting_input');
  const view = engine.getRun(runId);
  assert.deepEqual(view.budget.parked?.over, ['wall_secs']);
  assert.equal(view.budget.parked?.spent.wall_secs, 120);
  assert.deepEqual(startedSteps(engine, runId), ['hold']);
  await assert.rejects(engine.raiseBudget(runId, { wall_secs: 120 }), { code: 'KW_ERR_BUDGET_TOO_LOW', message: /wall time \(s\) 120 of 120/ });
  await engine.raiseBudget(runId, { wall_secs: 3600 });
  assert.equal(await engine.waitForRun(runId), 'succeeded');
  assert.deepEqual(startedSteps(engine, runId), ['hold', 'after']);
});
