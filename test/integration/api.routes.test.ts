/** Every route of the API through inject(): answers, error codes, schema errors, and the security checks. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { buildApi } from '../../api/index.js';
import { testApi } from '../support/api.js';
import { testEngine } from '../support/engine.js';
import { tempDir } from '../../testkit/tmp.js';

const TOKEN = 'k'.repeat(43);

describe('hordes', () => {
  test('the catalog lists built-in and user hordes; an invalid one shows its problems', async (t) => {
    const api = await testApi(t);
    const r = await api.call('GET', '/api/hordes');
    assert.equal(r.status, 200);
    const byId = new Map(r.json.hordes.map((h: any) => [h.id, h]));
    assert.equal((byId.get('project-check') as any).origin, 'builtin');
    assert.deepEqual({ ...(byId.get('gate') as any), problems: undefined }, {
      id: 'gate', displayName: 'gate', description: 'parks at check', origin: 'user', valid: true, problems: undefined, inputs: [], triggers: [], stepCount: 3,
    });
    const broken = byId.get('broken') as any;
    assert.equal(broken.valid, false);
    assert.ok(broken.problems.some((p: any) => p.code === 'KW_ERR_STEP_FILE_MISSING' && p.file !== undefined), JSON.stringify(broken.problems));
  });

  test('one horde has its steps, edges and inputs; unknown ids are 404 and malformed ids 400', async (t) => {
    const api = await testApi(t);
    const gate = await api.call('GET', '/api/hordes/gate');
    assert.equal(gate.status, 200);
    assert.deepEqual(gate.json.pipeline, ['first', 'check', 'last']);
    assert.equal(gate.json.steps[1].kind, 'verify');
    assert.match(gate.json.steps[1].verifyCommand, /^echo checked >> /);
    assert.deepEqual(gate.json.edges.map((e: any) => `${e.from}>${e.to}:${e.when}`), ['first>check:always', 'check>last:always']);
    const form = await api.call('GET', '/api/hordes/form');
    assert.deepEqual(form.json.inputs.map((i: any) => [i.id, i.type, i.required]), [['who', 'text', true], ['mood', 'choice', false], ['site', 'url', false]]);
    const missing = await api.call('GET', '/api/hordes/nope');
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error.code, 'KW_ERR_HORDE_NOT_FOUND');
    const traversal = await api.call('GET', '/api/hordes/..%2F..%2Fetc');
    assert.equal(traversal.status, 400);
    assert.equal(traversal.json.error.code, 'KW_ERR_BAD_REQUEST');
    assert.match(traversal.json.error.message, /^params\/id /);
  });

  test('validate reloads the folder and reports its problems', async (t) => {
    const api = await testApi(t);
    const before = await api.call('POST', '/api/hordes/broken/validate');
    assert.equal(before.status, 200);
    assert.equal(before.json.valid, false);
    fs.writeFileSync(path.join(api.home, 'hordes', 'broken', 'agents', 'missing.md'), '---\nname = "missing"\nkind = "noop"\n---\n');
    const after = await api.call('POST', '/api/hordes/broken/validate');
    assert.deepEqual(after.json, { valid: true, problems: [] });
  });

  test('starting a run answers 201 with its id after the commit; bad form answers are 400 naming the field', async (t) => {
    const api = await testApi(t);
    const ok = await api.call('POST', '/api/hordes/form/runs', { input: { who: 'Ada' } });
    assert.equal(ok.status, 201);
    const row = api.engine.listRuns().find((r) => r.id === ok.json.runId);
    assert.ok(row !== undefined, 'the run is committed before the answer');
    assert.deepEqual(row.input, { who: 'Ada', mood: 'calm' });
    assert.equal(row.provenance, 'api');
    const cli = await api.call('POST', '/api/hordes/quick/runs', { provenance: 'cli' });
    assert.equal(api.engine.getRun(cli.json.runId).run.provenance, 'cli');

    const missing = await api.call('POST', '/api/hordes/form/runs', { input: { mood: 'busy', site: 'ftp://x' } });
    assert.equal(missing.status, 400);
    assert.equal(missing.json.error.code, 'KW_ERR_INPUT_INVALID');
    assert.match(missing.json.error.message, /"who" \(who\) is required/);
    assert.match(missing.json.error.message, /"site" must be an http\(s\) URL/);
    const typed = await api.call('POST', '/api/hordes/form/runs', { input: { who: 3 } });
    assert.equal(typed.status, 400);
    assert.equal(typed.json.error.code, 'KW_ERR_BAD_REQUEST');
    assert.match(typed.json.error.message, /^body\/input\/who must be string/);
    const extra = await api.call('POST', '/api/hordes/form/runs', { input: {}, surprise: 1 });
    assert.match(extra.json.error.message, /^body\/surprise is not a known field/);
    const provenance = await api.call('POST', '/api/hordes/quick/runs', { provenance: 'trigger:x' });
    assert.equal(provenance.status, 400);
    assert.match(provenance.json.error.message, /^body\/provenance /);
    const invalid = await api.call('POST', '/api/hordes/broken/runs', { input: {} });
    assert.equal(invalid.status, 422);
    assert.equal(invalid.json.error.code, 'KW_ERR_HORDE_INVALID');
  });
});

describe('runs', () => {
  test('the list filters by state and horde and pages newest first with a cursor', async (t) => {
    const api = await testApi(t);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await api.call('POST', '/api/hordes/quick/runs', {});
      ids.push(r.json.runId);
      await api.engine.waitForRun(r.json.runId);
    }
    const gate = (await api.call('POST', '/api/hordes/gate/runs', {})).json.runId;
    await api.engine.waitForRun(gate);
    const page1 = await api.call('GET', '/api/runs?horde=quick&limit=2');
    assert.deepEqual(page1.json.runs.map((r: any) => r.id), [ids[2], ids[1]]);
    assert.equal(page1.json.nextCursor, ids[1]);
    const page2 = await api.call('GET', `/api/runs?horde=quick&limit=2&cursor=${page1.json.nextCursor}`);
    assert.deepEqual(page2.json.runs.map((r: any) => r.id), [ids[0]]);
    assert.equal(page2.json.nextCursor, null);
    const parked = await api.call('GET', '/api/runs?status=awaiting_input');
    assert.deepEqual(parked.json.runs.map((r: any) => r.id), [gate]);
    for (const bad of ['status=sleeping', 'limit=0', 'limit=501', 'cursor=../x', 'color=red']) {
      const r = await api.call('GET', `/api/runs?${bad}`);
      assert.equal(r.status, 400, bad);
      assert.equal(r.json.error.code, 'KW_ERR_BAD_REQUEST', bad);
      assert.match(r.json.error.message, /^querystring/, bad);
    }
  });

  test('one run with its steps and pending approval; its events after a sequence number; unknown runs are 404', async (t) => {
    const api = await testApi(t);
    const runId = (await api.call('POST', '/api/hordes/gate/runs', {})).json.runId;
    await api.engine.waitForRun(runId);
    const view = await api.call('GET', `/api/runs/${runId}`);
    assert.equal(view.status, 200);
    assert.equal(view.json.run.state, 'awaiting_input');
    assert.deepEqual(view.json.steps.map((s: any) => [s.name, s.state]), [['first', 'passed'], ['check', 'awaiting_approval'], ['last', 'pending']]);
    assert.equal(view.json.pending.length, 1);
    assert.deepEqual(view.json.pending[0].command.argv.slice(0, 2), ['/bin/sh', '-c']);
    assert.equal(view.json.workdir, path.join(api.home, 'runs', runId, 'output'));
    const events = await api.call('GET', `/api/runs/${runId}/events?after=2`);
    assert.deepEqual(events.json.events.map((e: any) => e.seq), [3, 4]);
    assert.equal(events.json.lastSeq, 4);
    assert.equal(events.json.events[1].event.type, 'approval.requested');
    const none = await api.call('GET', '/api/runs/rnothere');
    assert.equal(none.status, 404);
    assert.equal(none.json.error.code, 'KW_ERR_RUN_NOT_FOUND');
    assert.equal((await api.call('GET', '/api/runs/rnothere/events')).status, 404);
    assert.equal((await api.call('GET', `/api/runs/${runId}/events?after=-1`)).status, 400);
  });

  test('approve runs exactly the shown step; a second approve and acting on a finished run are 409', async (t) => {
    const api = await testApi(t);
    const runId = (await api.call('POST', '/api/hordes/gate/runs', {})).json.runId;
    await api.engine.waitForRun(runId);
    assert.equal(fs.existsSync(api.proof), false, 'nothing ran before the approval');
    const wrongStep = await api.call('POST', `/api/runs/${runId}/approve`, { step: 'last' });
    assert.equal(wrongStep.status, 409);
    assert.equal(wrongStep.json.error.code, 'KW_ERR_NO_PENDING_APPROVAL');
    const ok = await api.call('POST', `/api/runs/${runId}/approve`, { step: 'check' });
    assert.deepEqual([ok.status, ok.json], [200, { step: 'check' }]);
    assert.equal(await api.engine.waitForRun(runId), 'succeeded');
    assert.equal(fs.readFileSync(api.proof, 'utf8'), 'checked\n');
    const again = await api.call('POST', `/api/runs/${runId}/approve`);
    assert.equal(again.status, 409);
    assert.equal(again.json.error.code, 'KW_ERR_RUN_FINISHED');
    for (const action of ['cancel', 'resume']) {
      const r = await api.call('POST', `/api/runs/${runId}/${action}`);
      assert.equal(r.status, 409, action);
      assert.equal(r.json.error.code, 'KW_ERR_RUN_FINISHED', action);
    }
  });

  test('deny needs a reason and fails the step with it; cancel ends a parked run; resume leaves a parked run parked', async (t) => {
    const api = await testApi(t);
    const a = (await api.call('POST', '/api/hordes/gate/runs', {})).json.runId;
    const b = (await api.call('POST', '/api/hordes/gate/runs', {})).json.runId;
    await api.engine.waitForRun(a);
    await api.engine.waitForRun(b);
    const noReason = await api.call('POST', `/api/runs/${a}/deny`, {});
    assert.equal(noReason.status, 400);
    assert.match(noReason.json.error.message, /^body\/reason is required/);
    const empty = await api.call('POST', `/api/runs/${a}/deny`, { reason: '' });
    assert.match(empty.json.error.message, /^body\/reason must NOT have fewer than 1 characters/);
    const denied = await api.call('POST', `/api/runs/${a}/deny`, { reason: 'not on a Friday' });
    assert.deepEqual(denied.json, { step: 'check' });
    assert.equal(await api.engine.waitForRun(a), 'failed');
    const step = (await api.call('GET', `/api/runs/${a}`)).json.steps[1];
    assert.equal(step.summary, 'denied: not on a Friday');

    const resumed = await api.call('POST', `/api/runs/${b}/resume`);
    assert.deepEqual(resumed.json, { state: 'awaiting_input' });
    const cancelled = await api.call('POST', `/api/runs/${b}/cancel`, { reason: 'changed my mind' });
    assert.deepEqual(cancelled.json, { state: 'cancelled' });
    assert.equal(fs.existsSync(api.proof), false, 'neither command ran');
  });

  test('artifacts are served from the run workdir only, never as HTML, and never through a symlink out', async (t) => {
    const api = await testApi(t);
    const runId = (await api.call('POST', '/api/hordes/gate/runs', {})).json.runId;
    await api.engine.waitForRun(runId);
    await api.call('POST', `/api/runs/${runId}/approve`);
    await api.engine.waitForRun(runId);
    const view = (await api.call('GET', `/api/runs/${runId}`)).json;
    const artifact = view.steps[1].artifact;
    assert.equal(artifact, 'check.md');
    const r = await api.call('GET', `/api/runs/${runId}/artifacts/${artifact}`);
    assert.equal(r.status, 200);
    assert.equal(r.headers['content-type'], 'text/markdown; charset=utf-8');
    assert.equal(r.headers['content-security-policy'], "sandbox; default-src 'none'");
    assert.match(r.body, /checked/);
    fs.writeFileSync(path.join(view.workdir, 'page.html'), '<script>alert(1)</script>');
    const html = await api.call('GET', `/api/runs/${runId}/artifacts/page.html`);
    assert.equal(html.headers['content-type'], 'application/octet-stream');
    assert.match(String(html.headers['content-disposition']), /^attachment/);
    const secret = path.join(tempDir(t), 'secret.txt');
    fs.writeFileSync(secret, 'secret');
    fs.symlinkSync(secret, path.join(view.workdir, 'link.txt'));
    const link = await api.call('GET', `/api/runs/${runId}/artifacts/link.txt`);
    assert.equal(link.status, 400);
    assert.equal(link.json.error.code, 'KW_ERR_PATH_ESCAPES');
    const up = await api.call('GET', `/api/runs/${runId}/artifacts/..%2F..%2F..%2Fkowalski.sqlite`);
    assert.equal(up.status, 400);
    assert.equal(up.json.error.code, 'KW_ERR_PATH_ESCAPES');
    const missing = await api.call('GET', `/api/runs/${runId}/artifacts/nope.md`);
    assert.equal(missing.status, 404);
    assert.equal(missing.json.error.code, 'KW_ERR_ARTIFACT_NOT_FOUND');
  });
});

describe('setup', () => {
  test('a Gemini key, base URL and model are written to [providers.gemini]; only a hint comes back', async (t) => {
    const api = await testApi(t);
    const key = 'AIzaSyA-0123456789abcdefghijklmnop-wxyz';
    const put = await api.call('PUT', '/api/setup', { model: { default: 'gemini:gemini-2.5-flash' }, providers: { gemini: { apiKey: key, baseUrl: 'https://proxy.example/gemini/' } } });
    assert.equal(put.status, 200, put.body);
    assert.equal(put.body.includes(key), false, 'the key never comes back');
    assert.deepEqual(put.json.providers.gemini, { apiKeySet: true, apiKeyHint: 'AIza…wxyz', baseUrl: 'https://proxy.example/gemini' });
    assert.deepEqual(put.json.providers.anthropic, { apiKeySet: false, apiKeyHint: null, baseUrl: null });
    assert.match(fs.readFileSync(path.join(api.home, 'config.toml'), 'utf8'), /\[providers\.gemini\]\napi_key = "AIzaSyA-[^"]+"\nbase_url = "https:\/\/proxy\.example\/gemini"/);
    assert.equal(api.engine.config.model.default, 'gemini:gemini-2.5-flash');
    const bad = await api.call('PUT', '/api/setup', { providers: { gemini: { apiKey: 'two words' } } });
    assert.equal(bad.status, 400);
    assert.match(bad.body, /providers\.gemini\.apiKey/);
  });

  test('writes config.toml owner-only through a rename, never sends the key back, and the engine sees the model', async (t) => {
    const api = await testApi(t);
    const empty = await api.call('GET', '/api/setup');
    assert.deepEqual(empty.json, {
      configFile: path.join(api.home, 'config.toml'),
      model: { default: null, toolCalling: 'auto' },
      providers: { ollama: { host: null }, anthropic: { apiKeySet: false, apiKeyHint: null, baseUrl: null }, gemini: { apiKeySet: false, apiKeyHint: null, baseUrl: null }, openai: { apiKeySet: false, apiKeyHint: null, baseUrl: null } },
      tools: { root: null },
      vault: { semantic: { enabled: false, model: 'ollama:nomic-embed-text' } },
      webSearch: { provider: null, url: null, apiKeyEnv: null, apiKeyEnvSet: false, envKeySet: { brave: Boolean(process.env.BRAVE_API_KEY), staan: Boolean(process.env.STAAN_API_KEY) }, market: null, apiKeyHint: null },
    });
    const key = 'sk-ant-api03-ABCDEFGHIJKLMNOPQRSTUVWXYZ-wxyz';
    const put = await api.call('PUT', '/api/setup', { model: { default: 'anthropic:claude-haiku', toolCalling: 'native' }, providers: { anthropic: { apiKey: key } }, tools: { root: '~/kowalski-files' } });
    assert.equal(put.status, 200, put.body);
    assert.equal(put.body.includes(key), false, 'the key never comes back');
    assert.deepEqual(put.json.providers.anthropic, { apiKeySet: true, apiKeyHint: 'sk-a…wxyz', baseUrl: null });
    assert.equal((await api.call('GET', '/api/setup')).body.includes(key), false);
    const file = path.join(api.home, 'config.toml');
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.match(fs.readFileSync(file, 'utf8'), /api_key = "sk-ant-api03-/);
    assert.deepEqual(fs.readdirSync(api.home).filter((f) => f.includes('.tmp')), []);
    assert.equal(api.engine.config.model.default, 'anthropic:claude-haiku');

    const removed = await api.call('PUT', '/api/setup', { providers: { anthropic: { apiKey: null }, ollama: { host: 'http://10.0.0.5:11434/' } } });
    assert.deepEqual(removed.json.providers, { ollama: { host: 'http://10.0.0.5:11434' }, anthropic: { apiKeySet: false, apiKeyHint: null, baseUrl: null }, gemini: { apiKeySet: false, apiKeyHint: null, baseUrl: null }, openai: { apiKeySet: false, apiKeyHint: null, baseUrl: null } });
    assert.equal(removed.json.model.default, 'anthropic:claude-haiku', 'what the patch does not name is kept');

    for (const [body, field] of [
      [{ model: { default: 'gpt4' } }, 'model.default'],
      [{ providers: { ollama: { host: 'file:///etc' } } }, 'providers.ollama.host'],
      [{ tools: { root: 'relative/dir' } }, 'tools.root'],
      [{ model: { toolCalling: 'sometimes' } }, 'body/model/toolCalling'],
      [{ theme: 'dark' }, 'body/theme'],
      [{ vault: { semantic: { model: 'anthropic:claude-haiku' } } }, 'vault.semantic.model'],
      [{ vault: { semantic: { model: 'nomic-embed-text' } } }, 'vault.semantic.model'],
      [{ vault: { semantic: { enabled: 'yes' } } }, 'body/vault/semantic/enabled'],
    ] as const) {
      const r = await api.call('PUT', '/api/setup', body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.json.error.code, 'KW_ERR_BAD_REQUEST');
      assert.ok(r.json.error.message.startsWith(field), `${r.json.error.message} names ${field}`);
    }
  });
});

describe('setup: semantic search', () => {
  test('switching semantic search on writes [vault.semantic], and the engine takes it at once; off again closes it', async (t) => {
    const api = await testApi(t);
    assert.equal(api.engine.vaultSearch.status().semantic.enabled, false);
    const on = await api.call('PUT', '/api/setup', { vault: { semantic: { enabled: true, model: 'openai:text-embedding-3-small' } } });
    assert.equal(on.status, 200, on.body);
    assert.deepEqual(on.json.vault, { semantic: { enabled: true, model: 'openai:text-embedding-3-small' } });
    assert.match(fs.readFileSync(path.join(api.home, 'config.toml'), 'utf8'), /\[vault\.semantic\]\nenabled = true\nmodel = "openai:text-embedding-3-small"/);
    assert.deepEqual((await api.call('GET', '/api/setup')).json.vault, on.json.vault);
    const status = api.engine.vaultSearch.status().semantic;
    assert.deepEqual([status.enabled, status.model], [true, 'openai:text-embedding-3-small'], 'the reload switched it on');
    assert.ok(fs.existsSync(path.join(api.home, 'vectors.sqlite')));

    const reset = await api.call('PUT', '/api/setup', { vault: { semantic: { enabled: false, model: null } } });
    assert.deepEqual(reset.json.vault, { semantic: { enabled: false, model: 'ollama:nomic-embed-text' } }, 'a null model is the default again');
    assert.equal(api.engine.vaultSearch.status().semantic.enabled, false);
    assert.equal((await api.call('GET', '/api/vault/search?q=x&semantic=true')).json.note, 'semantic search is off (switch it on in Setup): keyword results only');
    assert.deepEqual(await api.engine.vault.search('x', { semantic: 'auto' }), { query: 'x', mode: 'keyword', hits: [] }, 'agents\' searches say nothing of it when it is off');
  });
});

describe('security', () => {
  test('a forged Host header is 403 (DNS rebinding), on every route', async (t) => {
    const api = await testApi(t);
    for (const host of ['evil.example:8765', 'evil.example', '127.0.0.1:9999', '127.0.0.1.evil.example:8765', '']) {
      const r = await api.call('GET', '/api/health', undefined, { host });
      assert.equal(r.status, 403, host);
      assert.equal(r.json.error.code, 'KW_ERR_FORBIDDEN_HOST', host);
    }
    for (const host of ['127.0.0.1:8765', 'localhost:8765', '[::1]:8765']) assert.equal((await api.call('GET', '/api/health', undefined, { host })).status, 200, host);
    const app = await api.call('GET', '/', undefined, { host: 'evil.example:8765' });
    assert.equal(app.status, 403);
  });

  test('a request from another origin is 403; the app own origin passes; no CORS headers and no cookies', async (t) => {
    const api = await testApi(t);
    const foreign = await api.call('POST', '/api/hordes/quick/runs', {}, { origin: 'http://evil.example' });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.json.error.code, 'KW_ERR_FORBIDDEN_ORIGIN');
    assert.equal(api.engine.listRuns().length, 0, 'nothing started');
    assert.equal((await api.call('GET', '/api/runs', undefined, { origin: 'null' })).status, 403);
    const own = await api.call('POST', '/api/hordes/quick/runs', {}, { origin: 'http://127.0.0.1:8765' });
    assert.equal(own.status, 201);
    for (const h of ['access-control-allow-origin', 'set-cookie']) assert.equal(own.headers[h], undefined, h);
    assert.equal(own.headers['x-content-type-options'], 'nosniff');
  });

  test('bodies are JSON only (415) and at most 1 MiB (413); bad JSON is 400; unknown routes 404', async (t) => {
    const api = await testApi(t);
    const text = await api.call('POST', '/api/hordes/quick/runs', 'input=1', { 'content-type': 'text/plain' });
    assert.equal(text.status, 415);
    assert.equal(text.json.error.code, 'KW_ERR_UNSUPPORTED_MEDIA');
    const form = await api.call('POST', '/api/hordes/quick/runs', 'input=1', { 'content-type': 'application/x-www-form-urlencoded' });
    assert.equal(form.status, 415);
    const big = await api.call('POST', '/api/hordes/form/runs', { input: { who: 'x'.repeat(1024 * 1024) } });
    assert.equal(big.status, 413);
    assert.equal(big.json.error.code, 'KW_ERR_BODY_TOO_LARGE');
    const broken = await api.call('POST', '/api/hordes/quick/runs', '{"input":', { 'content-type': 'application/json' });
    assert.equal(broken.status, 400);
    assert.equal(broken.json.error.code, 'KW_ERR_BAD_REQUEST');
    const nowhere = await api.call('GET', '/api/nowhere');
    assert.deepEqual([nowhere.status, nowhere.json.error.code], [404, 'KW_ERR_NOT_FOUND']);
    assert.equal(api.engine.listRuns().length, 0);
  });

  test('bound beyond loopback, every API route needs the bearer token; the app files do not', async (t) => {
    const home = tempDir(t);
    const engine = await testEngine(t, {}, home);
    await assert.rejects(buildApi(engine, { token: 'short', host: '0.0.0.0' }), { code: 'KW_ERR_USAGE' });
    await assert.rejects(buildApi(engine, { token: 'short' }), { code: 'KW_ERR_USAGE' }, 'on loopback too');
    const api = await testApi(t, { host: '0.0.0.0', token: TOKEN });
    const none = await api.call('GET', '/api/health');
    assert.equal(none.status, 401);
    assert.equal(none.json.error.code, 'KW_ERR_UNAUTHORIZED');
    const wrong = await api.call('GET', '/api/runs', undefined, { authorization: `Bearer ${'x'.repeat(43)}` });
    assert.equal(wrong.status, 401);
    assert.equal((await api.call('POST', '/api/hordes/quick/runs', {}, { authorization: 'Basic abc' })).status, 401);
    assert.equal(api.engine.listRuns().length, 0);
    const right = await api.call('GET', '/api/health', undefined, { authorization: `Bearer ${TOKEN}` });
    assert.equal(right.status, 200);
    assert.equal(right.json.auth, 'token');
    const byName = await api.call('GET', '/api/health', undefined, { authorization: `Bearer ${TOKEN}`, host: `${os.hostname()}:8765` });
    assert.equal(byName.status, 200, 'the machine name is one of the bound names');
    assert.equal((await api.call('GET', '/api/health', undefined, { authorization: `Bearer ${TOKEN}`, host: 'evil.example:8765' })).status, 403);
    const page = await api.call('GET', '/');
    assert.equal(page.status, 200, 'the app loads, then asks for the token');
  });

  test('the app is served with a strict Content-Security-Policy', async (t) => {
    const ui = tempDir(t);
    fs.writeFileSync(path.join(ui, 'index.html'), '<!doctype html><title>kowalski</title><script src="/app.js"></script>');
    fs.writeFileSync(path.join(ui, 'app.js'), 'console.log(1)');
    const api = await testApi(t, { uiDir: ui });
    const page = await api.call('GET', '/');
    assert.equal(page.status, 200);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(String(page.headers['content-security-policy']), /script-src 'self';/);
    assert.match(String(page.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal((await api.call('GET', '/app.js')).headers['content-type'], 'text/javascript; charset=utf-8');
    fs.writeFileSync(path.join(ui, 'xlsx-reader.js'), 'export default 1');
    assert.equal((await api.call('GET', '/xlsx-reader.js')).headers['content-type'], 'text/javascript; charset=utf-8', 'the workbook parser the app loads on demand');
    assert.match(String(page.headers['content-security-policy']), /worker-src 'self' blob:;/);
    const unbuilt = await testApi(t, { uiDir: path.join(ui, 'nothing') });
    assert.match((await unbuilt.call('GET', '/')).body, /npm run build/);
  });
});

test("every route's request schema compiles (each compiles at its route's first request, so a broken one would not stop the start)", async (t) => {
  const api = await testApi(t);
  await api.app.ready();
  const compiled = api.compileSchemas();
  t.diagnostic(`${compiled} route schemas`);
  assert.ok(compiled >= 50, `only ${compiled} route schemas were compiled`);
});
