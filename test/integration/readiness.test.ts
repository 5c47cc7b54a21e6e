/**
 * A horde's model readiness before a run starts (GET /api/hordes/:id/readiness): no model
 * configured, the fake Ollama answering with the model, without it, not
 * answering at all; an OpenAI-compatible server listing it or not; a hosted provider
 * without its key; a horde with no model step is ready without asking anything.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { buildApi } from '../../api/index.js';
import { createEngine } from '../../engine/index.js';
import { refusedUrl, startFakeOllama, startFakeOpenAI } from '../../testkit/fake-models.js';
import { TEST_KINDS, writeHorde } from '../support/engine.js';
import { tempDir } from '../../testkit/tmp.js';
import { cleanups } from '../../testkit/cleanup.js';
import { AUTH, TEST_TOKEN } from '../support/token.js';
import { testOwnCode } from '../../testkit/dist.js';

const HORDE = `id = "asker"
pipeline = ["intake", "think", "write", "other"]`;

const STEPS = {
  intake: 'kind = "noop"',
  think: 'kind = "process"',
  write: 'kind = "deliver"',
  other: 'kind = "process"\nmodel = "ollama:llama3.2:3b"',
};

/** An engine over `config` (config.toml's text) with the asker horde, behind the API; GET the readiness. */
async function readiness(t: TestContext, config: string, horde = 'asker'): Promise<any> {
  const home = tempDir(t, 'kw-ready-');
  writeHorde(path.join(home, 'hordes', 'asker'), HORDE, STEPS);
  writeHorde(path.join(home, 'hordes', 'plain'), 'id = "plain"\npipeline = ["a"]', { a: 'kind = "noop"' });
  fs.writeFileSync(path.join(home, 'config.toml'), config);
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home, extraStepKinds: TEST_KINDS });
  cleanups(t)(() => engine.close());
  const api = await buildApi(engine, { token: TEST_TOKEN, port: 8765 });
  cleanups(t)(() => api.app.close());
  const res = await api.app.inject({ method: 'GET', url: `/api/hordes/${horde}/readiness`, headers: { host: '127.0.0.1:8765', ...AUTH } });
  assert.equal(res.statusCode, 200, res.body);
  const json = JSON.parse(res.body);
  assert.equal(json.configFile, path.join(home, 'config.toml'));
  return json;
}

const brief = (r: any): Array<[string | null, string[], string]> => r.models.map((m: any) => [m.model, m.steps, m.status]);

test('no model configured: the steps without one are named, with config.toml and Setup; a step naming its own model is checked apart', async (t) => {
  const ollama = await startFakeOllama([]);
  cleanups(t)(() => ollama.close());
  const r = await readiness(t, `[providers.ollama]\nhost = "${ollama.url}"\n`);
  assert.equal(r.ready, false);
  assert.deepEqual(brief(r), [[null, ['think', 'write'], 'not_configured'], ['ollama:llama3.2:3b', ['other'], 'ok']]);
  assert.match(r.models[0].message, /steps `think`, `write` of asker need a model, and none is configured: choose one in the app's Setup screen, or set default = "provider:model" under \[model\] in \S+config\.toml/);
  assert.equal(ollama.requests.filter((q) => q.path === '/api/tags').length, 1, 'one look at the models');
  assert.equal(ollama.requests.filter((q) => q.path === '/api/chat').length, 0, 'no model was called');
});

test('Ollama answers and has the model: ready; has not got it: model_missing with the pull command', async (t) => {
  const ollama = await startFakeOllama([]);
  cleanups(t)(() => ollama.close());
  const ok = await readiness(t, `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${ollama.url}"\n`);
  assert.deepEqual([ok.ready, brief(ok)], [true, [['ollama:qwen2.5:7b', ['think', 'write'], 'ok'], ['ollama:llama3.2:3b', ['other'], 'ok']]]);
  const missing = await readiness(t, `[model]\ndefault = "ollama:mistral"\n[providers.ollama]\nhost = "${ollama.url}"\n`);
  assert.equal(missing.ready, false);
  assert.deepEqual(brief(missing)[0], ['ollama:mistral', ['think', 'write'], 'model_missing']);
  assert.match(missing.models[0].message, /steps `think`, `write` use ollama:mistral: Ollama at http:\/\/127\.0\.0\.1:\d+ does not have mistral: run `ollama pull mistral` \(it has: qwen2\.5:7b, llama3\.2:3b\)/);
});

test('Ollama does not answer: unreachable, naming the host and how to set it', async (t) => {
  const url = await refusedUrl();
  const r = await readiness(t, `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${url}"\n`);
  assert.equal(r.ready, false);
  assert.deepEqual(brief(r).map((m) => m[2]), ['unreachable', 'unreachable']);
  assert.match(r.models[0].message, /Ollama at http:\/\/127\.0\.0\.1:\d+ could not be reached \(ECONNREFUSED\): is `ollama serve` running\? \(host: \[providers\.ollama\] host in config\.toml, or OLLAMA_HOST\)/);
});

test('an OpenAI-compatible server is asked GET /models with its key; a model it does not list is model_missing', async (t) => {
  const server = await startFakeOpenAI([], { apiKey: 'sk-local' });
  cleanups(t)(() => server.close());
  const config = (model: string, key: string): string => `[model]\ndefault = "${model}"\n[providers.openai]\nbase_url = "${server.url}"\napi_key = "${key}"\n`;
  const ok = await readiness(t, config('openai:qwen2.5:7b', 'sk-local'));
  assert.deepEqual(brief(ok)[0], ['openai:qwen2.5:7b', ['think', 'write'], 'ok']);
  const missing = await readiness(t, config('openai:gpt-9', 'sk-local'));
  assert.deepEqual(brief(missing)[0]?.[2], 'model_missing');
  assert.match(missing.models[0].message, /does not list gpt-9/);
  const refused = await readiness(t, config('openai:qwen2.5:7b', 'sk-wrong'));
  assert.deepEqual(brief(refused)[0]?.[2], 'unreachable');
  assert.match(refused.models[0].message, /answered 401 \(the key was refused\)/);
});

test('not configured: openai without base_url, anthropic without a key; a horde with no model step is ready', async (t) => {
  const noBase = await readiness(t, '[model]\ndefault = "openai:gpt-4o"\n');
  assert.match(noBase.models[0].message, /set \[providers\.openai\] base_url in config\.toml/);
  const saved = process.env.ANTHROPIC_API_KEY;
  delete process.env.ANTHROPIC_API_KEY;
  t.after(() => {
    if (saved !== undefined) process.env.ANTHROPIC_API_KEY = saved;
  });
  const noKey = await readiness(t, '[model]\ndefault = "anthropic:claude-sonnet-4-5"\n');
  assert.deepEqual(brief(noKey)[0]?.[2], 'not_configured');
  assert.match(noKey.models[0].message, /\[providers\.anthropic\] api_key/);
  const plain = await readiness(t, '', 'plain');
  assert.deepEqual([plain.ready, plain.models], [true, []]);
});
