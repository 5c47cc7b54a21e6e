/** Results and approvals through the API: a run's delivery, an approval bound to the hash read, a misspelt horde id answered with a suggestion. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { testApi } from '../support/api.js';

describe('results and approvals', () => {
  test('approve with the hash read: another hash is 409 KW_ERR_APPROVAL_STALE and nothing runs; the shown one runs it; the view names the delivery', async (t) => {
    const api = await testApi(t);
    const runId = (await api.call('POST', '/api/hordes/gate/runs', {})).json.runId;
    await api.engine.waitForRun(runId);
    const parked = await api.call('GET', `/api/runs/${runId}`);
    assert.equal(parked.json.delivery, null, 'no step has written an artifact yet');
    const { hash } = parked.json.pending[0];
    assert.match(hash, /^[0-9a-f]{64}$/);

    const stale = await api.call('POST', `/api/runs/${runId}/approve`, { step: 'check', hash: 'f'.repeat(64) });
    assert.equal(stale.status, 409);
    assert.equal(stale.json.error.code, 'KW_ERR_APPROVAL_STALE');
    assert.match(stale.json.error.message, new RegExp(`waits with command hash ${hash}`));
    assert.equal((await api.call('GET', `/api/runs/${runId}`)).json.run.state, 'awaiting_input');
    assert.equal(fs.existsSync(api.proof), false, 'nothing ran');
    assert.equal((await api.call('POST', `/api/runs/${runId}/approve`, { step: 'check', hash: '' })).status, 400);

    const ok = await api.call('POST', `/api/runs/${runId}/approve`, { step: 'check', hash });
    assert.deepEqual([ok.status, ok.json], [200, { step: 'check' }]);
    assert.equal(await api.engine.waitForRun(runId), 'succeeded');
    assert.equal(fs.readFileSync(api.proof, 'utf8'), 'checked\n');

    const view = (await api.call('GET', `/api/runs/${runId}`)).json;
    const check = view.steps.find((s: { name: string }) => s.name === 'check');
    assert.ok(check.artifact !== null);
    assert.deepEqual(view.delivery, { artifact: check.artifact, path: path.join(view.workdir, check.artifact), step: 'check', title: null });
    assert.ok(fs.statSync(view.delivery.path).isFile());
  });

  test('a misspelt horde id is 404 with the nearest ids; one far from all is 404 without', async (t) => {
    const api = await testApi(t);
    const typo = await api.call('GET', '/api/hordes/projet-check');
    assert.equal(typo.status, 404);
    assert.equal(typo.json.error.code, 'KW_ERR_HORDE_NOT_FOUND');
    assert.equal(typo.json.error.message, 'no horde "projet-check" (see GET /api/hordes); did you mean "project-check"?');
    const start = await api.call('POST', '/api/hordes/quik/runs', {});
    assert.equal(start.status, 404);
    assert.match(start.json.error.message, /did you mean "quick"\?$/);
    const far = await api.call('GET', '/api/hordes/weather-report');
    assert.equal(far.json.error.message, 'no horde "weather-report" (see GET /api/hordes)');
  });
});
