/** `POST /api/runs/:id/rerun`: a new run from a step, the earlier steps reused (an approved command is not asked for or run again); refusals with their codes and statuses. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { testApi } from '../support/api.js';
import { nextEvent, writeHorde } from '../support/engine.js';

describe('POST /api/runs/:id/rerun', () => {
  test('from the step after an approved command: 201 with the new run, the command is reused (not asked for, not run); from the command itself it asks again', async (t) => {
    const api = await testApi(t);
    const old = (await api.call('POST', '/api/hordes/gate/runs', {})).json.runId;
    assert.equal(await api.engine.waitForRun(old), 'awaiting_input');
    await api.call('POST', `/api/runs/${old}/approve`, { step: 'check' });
    assert.equal(await api.engine.waitForRun(old), 'succeeded');
    assert.equal(fs.readFileSync(api.proof, 'utf8'), 'checked\n');

    const r = await api.call('POST', `/api/runs/${old}/rerun`, { from: 'last' });
    assert.equal(r.status, 201, r.body);
    const id = r.json.runId as string;
    assert.match(id, /^r[0-9a-z]+$/);
    assert.equal(await api.engine.waitForRun(id), 'succeeded', 'nothing waited for an approval');
    assert.equal(fs.readFileSync(api.proof, 'utf8'), 'checked\n', 'the command did not run again');
    const run = (await api.call('GET', `/api/runs/${id}`)).json;
    assert.equal(run.run.provenance, `rerun:${old}`);
    const events = (await api.call('GET', `/api/runs/${id}/events`)).json.events.map((e: { event: { type: string; step?: string; reusedFrom?: { run: string } } }) => e.event);
    assert.deepEqual(events.filter((e: { type: string }) => e.type === 'step.finished').map((e: { step: string; reusedFrom?: { run: string } }) => `${e.step}:${e.reusedFrom?.run ?? 'ran'}`),
      [`first:${old}`, `check:${old}`, 'last:ran']);
    assert.equal(events.some((e: { type: string }) => e.type === 'approval.requested'), false);

    const fromCheck = await api.call('POST', `/api/runs/${old}/rerun`, { from: 'check', replayModels: true });
    assert.equal(fromCheck.status, 201);
    assert.equal(await api.engine.waitForRun(fromCheck.json.runId), 'awaiting_input', 'the command asks again');
  });

  test('refusals: a bad body is 400, an unknown step 422, a mismatching horde 409, an unknown run 404, a run still running 409', async (t) => {
    const api = await testApi(t);
    const old = (await api.call('POST', '/api/hordes/quick/runs', {})).json.runId;
    assert.equal(await api.engine.waitForRun(old), 'succeeded');
    const noFrom = await api.call('POST', `/api/runs/${old}/rerun`, {});
    assert.deepEqual([noFrom.status, noFrom.json.error.code], [400, 'KW_ERR_BAD_REQUEST']);
    const extra = await api.call('POST', `/api/runs/${old}/rerun`, { from: 'b', folder: '/tmp' });
    assert.deepEqual([extra.status, extra.json.error.code], [400, 'KW_ERR_BAD_REQUEST']);
    const byPath = await api.call('POST', `/api/runs/${old}/rerun`, { from: 'b', horde: '/tmp/h' });
    assert.equal(byPath.status, 400, 'a folder is never named by the caller');
    const unknown = await api.call('POST', `/api/runs/${old}/rerun`, { from: 'zz' });
    assert.deepEqual([unknown.status, unknown.json.error.code], [422, 'KW_ERR_RERUN_STEP_UNKNOWN']);
    const other = await api.call('POST', `/api/runs/${old}/rerun`, { from: 'last', horde: 'gate' });
    assert.deepEqual([other.status, other.json.error.code], [409, 'KW_ERR_RERUN_MISMATCH']);
    assert.match(other.json.error.message, /"first" is not a step of that run's horde/);
    const none = await api.call('POST', '/api/runs/rnothere/rerun', { from: 'b' });
    assert.deepEqual([none.status, none.json.error.code], [404, 'KW_ERR_RUN_NOT_FOUND']);

    const gateFile = path.join(api.home, 'open');
    writeHorde(path.join(api.home, 'hordes', 'held'), 'id = "held"\npipeline = ["a", "hold"]', { a: 'kind = "noop"\n[[inputs]]\nid = "gate"', hold: 'kind = "gate"' });
    const started = nextEvent(api.engine, (type, step) => type === 'step.started' && step === 'hold');
    const running = (await api.call('POST', '/api/hordes/held/runs', { input: { gate: gateFile } })).json.runId;
    await started;
    const active = await api.call('POST', `/api/runs/${running}/rerun`, { from: 'hold' });
    assert.deepEqual([active.status, active.json.error.code], [409, 'KW_ERR_RUN_ACTIVE']);
    fs.writeFileSync(gateFile, '');
    assert.equal(await api.engine.waitForRun(running), 'succeeded');
    assert.equal(api.engine.listRuns().length, 2, 'no refused re-run made a run');
  });
});
