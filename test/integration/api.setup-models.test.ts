/**
 * GET /api/setup/models: Setup offers the models the saved settings' server lists — a real
 * fake Ollama (`/api/tags`) and a real fake OpenAI-compatible server (`/v1/models`, its key
 * checked) on 127.0.0.1 — and says why it offers none when the server is not set, not there,
 * or refuses the key.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { testApi } from '../support/api.js';
import { cleanups } from '../../testkit/cleanup.js';
import { refusedUrl, startFakeOllama, startFakeOpenAI } from '../../testkit/fake-models.js';

test('Ollama: the models its saved host lists, sorted; a host that does not answer is named with what to do', async (t) => {
  const api = await testApi(t);
  const ollama = await startFakeOllama([]);
  cleanups(t)(() => ollama.close());
  assert.equal((await api.call('PUT', '/api/setup', { providers: { ollama: { host: ollama.url } } })).status, 200);

  const list = await api.call('GET', '/api/setup/models?provider=ollama');
  assert.equal(list.status, 200, list.body);
  assert.deepEqual(list.json, { provider: 'ollama', server: ollama.url, models: ['llama3.2:3b', 'qwen2.5:7b'], problem: null });

  const gone = await refusedUrl();
  assert.equal((await api.call('PUT', '/api/setup', { providers: { ollama: { host: gone } } })).status, 200);
  const none = await api.call('GET', '/api/setup/models?provider=ollama');
  assert.equal(none.status, 200);
  assert.deepEqual(none.json.models, []);
  assert.equal(none.json.server, gone);
  assert.match(none.json.problem, new RegExp(`^Ollama at ${gone} could not be reached \\(ECONNREFUSED\\): is \`ollama serve\` running\\?`));
});

test('OpenAI-compatible: none offered until a server is saved; then its /models with the saved key; a refused key is said', async (t) => {
  const api = await testApi(t);
  const server = await startFakeOpenAI([], { apiKey: 'sk-local-0123456789' });
  cleanups(t)(() => server.close());

  const unset = await api.call('GET', '/api/setup/models?provider=openai');
  assert.deepEqual(unset.json, { provider: 'openai', server: null, models: [], problem: 'no OpenAI-compatible server is set: fill in its base URL and save, then its models are offered' });

  assert.equal((await api.call('PUT', '/api/setup', { providers: { openai: { baseUrl: server.url, apiKey: 'sk-wrong-0123456789' } } })).status, 200);
  const refused = await api.call('GET', '/api/setup/models?provider=openai');
  assert.deepEqual(refused.json.models, []);
  assert.match(refused.json.problem, /answered 401 \(the key was refused\) \(\[providers\.openai\] base_url in config\.toml\)$/);
  assert.equal(refused.body.includes('sk-wrong'), false, 'the key is never sent back');

  assert.equal((await api.call('PUT', '/api/setup', { providers: { openai: { apiKey: 'sk-local-0123456789' } } })).status, 200);
  const list = await api.call('GET', '/api/setup/models?provider=openai');
  assert.deepEqual(list.json, { provider: 'openai', server: server.url, models: ['llama3.2:3b', 'qwen2.5:7b'], problem: null });
});

test('a provider whose models are not listed (a hosted one) or none at all is a 400 naming the query', async (t) => {
  const api = await testApi(t);
  for (const url of ['/api/setup/models?provider=anthropic', '/api/setup/models']) {
    const res = await api.call('GET', url);
    assert.equal(res.status, 400, url);
    assert.equal(res.json.error.code, 'KW_ERR_BAD_REQUEST');
    assert.match(res.json.error.message, /querystring/);
  }
});
