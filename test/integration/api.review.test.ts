/** The review routes: the artifact with its hash, approve bound to that hash, edit and approve, deny; stale views are 409. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { sha256Of } from '../../steps/index.js';
import { testApi } from '../support/api.js';
import { writeHorde } from '../support/engine.js';

async function reviewApi(t: Parameters<typeof testApi>[0]) {
  const api = await testApi(t);
  writeHorde(path.join(api.home, 'hordes', 'review'), 'id = "review"\npipeline = ["write", "check", "use"]', {
    write: 'kind = "draft"\noutput = "draft.md"', check: 'kind = "review"', use: 'kind = "draft"\ncontext_paths = ["@artifact@"]',
  });
  const started = await api.call('POST', '/api/hordes/review/runs', {});
  assert.equal(started.status, 201, started.body);
  const runId = started.json.runId as string;
  assert.equal(await api.engine.waitForRun(runId), 'awaiting_input');
  return { api, runId, workdir: api.engine.getRun(runId).workdir };
}

describe('api: review steps', () => {
  test('GET shows the artifact and its hash; the run view lists the review; approve with the hash continues', async (t) => {
    const { api, runId, workdir } = await reviewApi(t);
    const text = fs.readFileSync(path.join(workdir, 'draft.md'), 'utf8');
    const view = await api.call('GET', `/api/runs/${runId}/review`);
    assert.equal(view.status, 200);
    assert.deepEqual(view.json, { runId, step: 'check', path: 'draft.md', hash: sha256Of(text), content: text, bytes: Buffer.byteLength(text), changed: false });
    const run = await api.call('GET', `/api/runs/${runId}`);
    assert.deepEqual([run.json.pending[0].reason, run.json.pending[0].artifact, run.json.pending[0].hash], ['review', 'draft.md', sha256Of(text)]);
    const stale = await api.call('POST', `/api/runs/${runId}/approve`, { step: 'check', hash: sha256Of('another view') });
    assert.deepEqual([stale.status, stale.json.error.code], [409, 'KW_ERR_REVIEW_STALE']);
    const ok = await api.call('POST', `/api/runs/${runId}/approve`, { step: 'check', hash: view.json.hash });
    assert.deepEqual([ok.status, ok.json], [200, { step: 'check' }]);
    assert.equal(await api.engine.waitForRun(runId), 'succeeded');
    assert.equal(fs.readFileSync(path.join(workdir, 'use.md'), 'utf8'), `read:\n${text}`);
  });

  test('POST an edit: the event carries the diff, the next step reads the edit; a stale hash or a command approval is 409, a missing hash 400', async (t) => {
    const { api, runId, workdir } = await reviewApi(t);
    const view = (await api.call('GET', `/api/runs/${runId}/review`)).json;
    const noHash = await api.call('POST', `/api/runs/${runId}/review`, { content: 'x' });
    assert.equal(noHash.status, 400);
    const stale = await api.call('POST', `/api/runs/${runId}/review`, { hash: sha256Of('old'), content: 'x' });
    assert.deepEqual([stale.status, stale.json.error.code], [409, 'KW_ERR_REVIEW_STALE']);
    const edited = `${view.content as string}added in the app\n`;
    const res = await api.call('POST', `/api/runs/${runId}/review`, { step: 'check', hash: view.hash, content: edited });
    assert.equal(res.status, 200, res.body);
    assert.deepEqual(res.json, { step: 'check', path: 'draft.md', before: view.hash, after: sha256Of(edited), edited: true });
    assert.equal(await api.engine.waitForRun(runId), 'succeeded');
    assert.equal(fs.readFileSync(path.join(workdir, 'use.md'), 'utf8'), `read:\n${edited}`);
    const events = (await api.call('GET', `/api/runs/${runId}/events`)).json.events as Array<{ event: { type: string; diff?: string } }>;
    assert.match(events.find((e) => e.event.type === 'artifact.edited')?.event.diff ?? '', /^\+added in the app$/m);
    const after = await api.call('GET', `/api/runs/${runId}/review`);
    assert.deepEqual([after.status, after.json.error.code], [409, 'KW_ERR_RUN_FINISHED']);

    const gate = (await api.call('POST', '/api/hordes/gate/runs', {})).json.runId as string;
    await api.engine.waitForRun(gate);
    const notReview = await api.call('GET', `/api/runs/${gate}/review`);
    assert.deepEqual([notReview.status, notReview.json.error.code], [409, 'KW_ERR_NOT_A_REVIEW']);
  });

  test('deny with a reason fails the run with it', async (t) => {
    const { api, runId } = await reviewApi(t);
    const res = await api.call('POST', `/api/runs/${runId}/deny`, { reason: 'not what was asked' });
    assert.equal(res.status, 200);
    assert.equal(await api.engine.waitForRun(runId), 'failed');
    assert.match((await api.call('GET', `/api/runs/${runId}`)).json.run.error, /not what was asked/);
  });
});
