/**
 * The Rookery over HTTP through a real engine and API (inject()): a draft made with a builder
 * session, a direct edit answered with its problems at step and key, the stage moving from
 * interview to proposed to born, the birth writing the folder into Hordes, 409 for a horde of
 * the same id, 404 for a draft that is not there, 400 for a bad body; no builder without a model.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { testApi } from '../support/api.js';

const draft = (over: Record<string, unknown> = {}) => ({
  id: 'daily-note',
  display_name: 'Daily note',
  description: 'Writes a note for the day.',
  steps: [
    { name: 'intake', kind: 'ingest', inputs: [{ id: 'topic', type: 'text', label: 'Topic', required: true }] },
    { name: 'write', kind: 'process', prompt_body: 'Write a short note about the topic.' },
  ],
  edges: [],
  ...over,
});

test('a draft with a builder session, a direct edit with its problems at step and key, the stages, the birth into Hordes', async (t) => {
  const api = await testApi(t);
  // No model configured: no builder to talk to (the editor still works without one).
  const noModel = await api.call('POST', '/api/rookery/drafts', { with_chat: true });
  assert.deepEqual([noModel.status, noModel.json.error?.code], [422, 'KW_ERR_NO_MODEL']);
  assert.deepEqual((await api.call('GET', '/api/rookery/drafts')).json.drafts, []);
  fs.writeFileSync(path.join(api.home, 'config.toml'), '[model]\ndefault = "ollama:qwen2.5:7b"\n');
  api.engine.reloadConfig();
  const made = await api.call('POST', '/api/rookery/drafts', { with_chat: true });
  assert.equal(made.status, 201, made.body);
  assert.match(made.json.id, /^d[0-9a-z]+$/);
  assert.equal(api.engine.chat.summary(made.json.session_id).agent, 'builder');
  assert.equal(made.json.stage, 'interview');
  assert.equal(made.json.ok, false);
  assert.ok(made.json.problems.some((p: any) => p.key === 'id' && p.severity === 'error'), made.body);

  // A step of a kind nobody knows: the problem names the step and the key.
  const bad = await api.call('PUT', `/api/rookery/drafts/${made.json.id}`, { draft: draft({ steps: [{ name: 'intake', kind: 'ingest' }, { name: 'write', kind: 'poetry' }] }) });
  assert.equal(bad.status, 200, bad.body);
  assert.equal(bad.json.ok, false);
  assert.equal(bad.json.stage, 'interview');
  const kind = bad.json.problems.find((p: any) => p.code === 'KW_ERR_STEP_KIND_UNKNOWN');
  assert.deepEqual([kind?.step, kind?.key, kind?.severity], ['write', 'kind', 'error'], bad.body);
  const refused = await api.call('POST', `/api/rookery/drafts/${made.json.id}/birth`, {});
  assert.equal(refused.status, 422, refused.body);
  assert.equal(refused.json.error.code, 'KW_ERR_DRAFT_INVALID');
  assert.equal(fs.existsSync(path.join(api.home, 'hordes', 'daily-note')), false);

  const good = await api.call('PUT', `/api/rookery/drafts/${made.json.id}`, { draft: draft() });
  assert.deepEqual([good.json.ok, good.json.stage, good.json.problems.filter((p: any) => p.severity === 'error')], [true, 'proposed', []], good.body);

  const born = await api.call('POST', `/api/rookery/drafts/${made.json.id}/birth`);
  assert.equal(born.status, 200, born.body);
  assert.deepEqual([born.json.horde_id, born.json.validate_ok, born.json.horde_root], ['daily-note', true, path.join(api.home, 'hordes', 'daily-note')]);
  const horde = await api.call('GET', '/api/hordes/daily-note');
  assert.equal(horde.status, 200, horde.body);
  assert.deepEqual(horde.json.pipeline ?? horde.json.steps.map((s: any) => s.name), ['intake', 'write']);
  const after = await api.call('GET', `/api/rookery/drafts/${made.json.id}`);
  assert.equal(after.json.stage, 'born');
  assert.equal(after.json.born.horde_id, 'daily-note');
  // The same birth again answers the same; a changed draft is this draft's own horde: it is written again.
  assert.deepEqual((await api.call('POST', `/api/rookery/drafts/${made.json.id}/birth`)).json, born.json);
  const edited = await api.call('PUT', `/api/rookery/drafts/${made.json.id}`, { draft: draft({ description: 'Changed.' }) });
  assert.equal(edited.json.stage, 'proposed');
  assert.equal((await api.call('POST', `/api/rookery/drafts/${made.json.id}/birth`)).status, 200);
  assert.match(fs.readFileSync(path.join(api.home, 'hordes', 'daily-note', 'horde.md'), 'utf8'), /Changed\./);

  // Another draft of the same id: 409 unless overwrite.
  const other = await api.call('POST', '/api/rookery/drafts', {});
  assert.equal(other.json.session_id, null);
  await api.call('PUT', `/api/rookery/drafts/${other.json.id}`, { draft: draft({ description: 'Mine.' }) });
  const clash = await api.call('POST', `/api/rookery/drafts/${other.json.id}/birth`, {});
  assert.equal(clash.status, 409, clash.body);
  assert.equal(clash.json.error.code, 'KW_ERR_HORDE_EXISTS');
  assert.equal((await api.call('POST', `/api/rookery/drafts/${other.json.id}/birth`, { overwrite: true })).status, 200);

  const list = await api.call('GET', '/api/rookery/drafts');
  assert.deepEqual(list.json.drafts.map((d: any) => [d.id, d.horde_id, d.stage]).sort(), [[made.json.id, 'daily-note', 'born'], [other.json.id, 'daily-note', 'born']].sort());
});

test('errors: an unknown draft is 404, a body that is no draft 400 or 422', async (t) => {
  const api = await testApi(t);
  const missing = await api.call('GET', '/api/rookery/drafts/dnothere');
  assert.deepEqual([missing.status, missing.json.error.code], [404, 'KW_ERR_DRAFT_NOT_FOUND']);
  assert.equal((await api.call('GET', '/api/rookery/drafts/..%2Fetc')).status, 400);
  const made = await api.call('POST', '/api/rookery/drafts');
  assert.equal(made.status, 201, made.body);
  const noDraft = await api.call('PUT', `/api/rookery/drafts/${made.json.id}`, { steps: [] });
  assert.equal(noDraft.status, 400, noDraft.body);
  const notObject = await api.call('PUT', `/api/rookery/drafts/${made.json.id}`, { draft: [] });
  assert.equal(notObject.status, 400, notObject.body);
  assert.equal((await api.call('POST', '/api/rookery/drafts', { with_chat: 'yes' })).status, 400);
  // 20,000 small steps (the finding: refused after 169 s, the server frozen meanwhile): counted and refused at once.
  const steps = Array.from({ length: 20_000 }, (_, i) => ({ name: `s${i}`, kind: 'process' }));
  const started = performance.now();
  const huge = await api.call('PUT', `/api/rookery/drafts/${made.json.id}`, { draft: { id: 'huge', steps } });
  assert.deepEqual([huge.status, huge.json.error?.code], [413, 'KW_ERR_DRAFT_TOO_LARGE'], huge.body);
  assert.match(huge.json.error.message, /20000 steps/);
  assert.ok(performance.now() - started < 2000, `answered after ${performance.now() - started} ms`);
  assert.equal((await api.call('GET', `/api/rookery/drafts/${made.json.id}`)).json.draft.id, '', 'the draft is unchanged');
});
