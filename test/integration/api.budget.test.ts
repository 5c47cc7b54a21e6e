/** POST /api/runs/:id/budget and the budget in GET /api/runs/:id, against a real engine and a fake Ollama. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildApi } from '../../api/index.js';
import { createEngine } from '../../engine/index.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import { ANSWER, writeModelConfig, writeModelHorde } from '../support/budget.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';
import { AUTH, TEST_TOKEN } from '../support/token.js';
import { testOwnCode } from '../../testkit/dist.js';

test('a run parked for its budget shows spent and limits; a raise through the API lets it finish; bad raises name the field', async (t) => {
  const server = await startFakeOllama(() => ANSWER);
  cleanups(t)(() => server.close());
  const home = tempDir(t, 'kw-api-budget-');
  writeModelConfig(home, server.url);
  writeModelHorde(home, 'tok', '[budget]\nmodel_calls = 1');
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  cleanups(t)(() => engine.close());
  const api = await buildApi(engine, { token: TEST_TOKEN, port: 8765 });
  cleanups(t)(() => api.app.close());
  const call = async (method: 'GET' | 'POST', url: string, body?: unknown): Promise<{ status: number; json: any }> => {
    const res = await api.app.inject({
      method, url, headers: { host: '127.0.0.1:8765', ...AUTH, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    return { status: res.statusCode, json: res.json() };
  };

  const started = await call('POST', '/api/hordes/tok/runs', { input: { topic: 'x' } });
  assert.equal(started.status, 201, JSON.stringify(started.json));
  const runId = started.json.runId as string;
  assert.equal(await engine.waitForRun(runId), 'awaiting_input');
  const run = await call('GET', `/api/runs/${runId}`);
  assert.equal(run.json.run.state, 'awaiting_input');
  assert.deepEqual(run.json.budget.limits, { model_calls: 1 });
  assert.deepEqual(run.json.budget.parked.over, ['model_calls']);
  assert.equal(run.json.budget.spent.tokens, 150);

  const refused: [unknown, number, string, RegExp][] = [
    [{}, 400, 'KW_ERR_BAD_REQUEST', /must NOT have fewer than 1 properties/],
    [{ tokns: 5 }, 400, 'KW_ERR_BAD_REQUEST', /tokns/],
    [{ model_calls: 0 }, 400, 'KW_ERR_BAD_REQUEST', /model_calls/],
    [{ model_calls: 'lots' }, 400, 'KW_ERR_BAD_REQUEST', /model_calls/],
    [{ model_calls: 1 }, 409, 'KW_ERR_BUDGET_TOO_LOW', /model calls 1 of 1/],
  ];
  for (const [body, status, code, message] of refused) {
    const r = await call('POST', `/api/runs/${runId}/budget`, body);
    assert.equal(r.status, status, JSON.stringify(body));
    assert.equal(r.json.error.code, code, JSON.stringify(r.json));
    assert.match(r.json.error.message, message);
  }
  const missing = await call('POST', '/api/runs/rnothere/budget', { model_calls: 5 });
  assert.equal(missing.status, 404);

  const raised = await call('POST', `/api/runs/${runId}/budget`, { model_calls: 10, cost_usd: 1.5 });
  assert.equal(raised.status, 200, JSON.stringify(raised.json));
  assert.deepEqual(raised.json.budget.limits, { model_calls: 10, cost_usd: 1.5 });
  assert.equal(raised.json.budget.parked, null);
  assert.equal(await engine.waitForRun(runId), 'succeeded');
  const done = await call('GET', `/api/runs/${runId}`);
  assert.equal(done.json.budget.spent.model_calls, 3);
  const events = await call('GET', `/api/runs/${runId}/events`);
  const types = (events.json.events as { event: { type: string } }[]).map((e) => e.event.type);
  assert.ok(types.includes('budget.exceeded') && types.includes('budget.raised'), types.join(' '));
});
