/** PUT /api/setup: config.toml keeps its comments, and the default model is checked when the save changed it. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { testApi } from '../support/api.js';
import { cleanups } from '../../testkit/cleanup.js';
import { refusedUrl, startFakeOllama, startFakeOpenAI } from '../../testkit/fake-models.js';

const COMMENTED = `# my kowalski config — hand written
# (keep this header)

[model]
# the model every horde uses
default = "ollama:qwen2.5:7b" # the good one
tool_calling = "auto"

[chat]
max_depth = 2 # not touched by Setup

# tools live here
[tools]
root = "/srv/tools"   # the shared folder
`;

describe('setup: saving keeps config.toml comments', () => {
  test('comments at the top, inside tables and trailing key lines stay; the new values are written', async (t) => {
    const api = await testApi(t);
    const file = path.join(api.home, 'config.toml');
    fs.writeFileSync(file, COMMENTED);
    const put = await api.call('PUT', '/api/setup', {
      model: { default: 'anthropic:claude-haiku', toolCalling: 'native' },
      providers: { anthropic: { apiKey: 'sk-ant-0123456789abcdef' } },
      tools: { root: null },
      vault: { semantic: { enabled: true } },
    });
    assert.equal(put.status, 200, put.body);
    assert.equal(put.json.written.comments, 'kept');
    const text = fs.readFileSync(file, 'utf8');
    assert.equal(text, `# my kowalski config — hand written
# (keep this header)

[model]
# the model every horde uses
default = "anthropic:claude-haiku" # the good one
tool_calling = "native"

[chat]
max_depth = 2 # not touched by Setup

# tools live here
[tools]

[providers.anthropic]
api_key = "sk-ant-0123456789abcdef"

[vault.semantic]
enabled = true
`);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(api.engine.config.chat.maxDepth, 2);
    assert.equal(api.engine.config.tools.root, null);
    assert.deepEqual(put.json.check, { status: 'ok', message: 'anthropic:claude-haiku: an Anthropic key is set (Anthropic is not contacted by this check)' });
  });

  test('a layout the line editor cannot keep is written afresh, and the answer says the comments went', async (t) => {
    const api = await testApi(t);
    const file = path.join(api.home, 'config.toml');
    fs.writeFileSync(file, '# dotted keys\nmodel.default = "ollama:qwen2.5:7b"\n');
    const put = await api.call('PUT', '/api/setup', { model: { toolCalling: 'text' } });
    assert.equal(put.status, 200, put.body);
    assert.equal(put.json.written.comments, 'dropped');
    assert.match(put.json.written.message, /comments were not kept/);
    assert.equal(put.json.check, null, 'neither the model nor a provider changed');
    assert.equal(fs.readFileSync(file, 'utf8'), '[model]\ndefault = "ollama:qwen2.5:7b"\ntool_calling = "text"\n');
  });
});

describe('setup: the model is checked on save', () => {
  test('an Ollama that has the model, one that lacks it, a host nothing listens on, no model at all', async (t) => {
    const api = await testApi(t);
    const ollama = await startFakeOllama([]);
    cleanups(t)(() => ollama.close());
    const has = await api.call('PUT', '/api/setup', { model: { default: 'ollama:qwen2.5:7b' }, providers: { ollama: { host: ollama.url } } });
    assert.equal(has.status, 200, has.body);
    assert.deepEqual(has.json.check, { status: 'ok', message: `ollama:qwen2.5:7b: Ollama at ${ollama.url} has qwen2.5:7b` });

    const lacks = await api.call('PUT', '/api/setup', { model: { default: 'ollama:mistral:7b' } });
    assert.equal(lacks.json.check.status, 'model_missing');
    assert.match(lacks.json.check.message, /does not have mistral:7b: run `ollama pull mistral:7b` \(it has: qwen2\.5:7b, llama3\.2:3b\)/);

    const nowhere = await refusedUrl();
    const down = await api.call('PUT', '/api/setup', { providers: { ollama: { host: nowhere } } });
    assert.equal(down.json.check.status, 'unreachable');
    assert.match(down.json.check.message, new RegExp(`Ollama at ${nowhere} could not be reached \\(ECONNREFUSED\\)`));

    const none = await api.call('PUT', '/api/setup', { model: { default: null } });
    assert.equal(none.json.check.status, 'not_configured');
    assert.match(none.json.check.message, /no default model is set/);
  });

  test('an OpenAI-compatible server: its base URL and key are written to [providers.openai], the key is checked and the model listed', async (t) => {
    const api = await testApi(t);
    const server = await startFakeOpenAI([], { apiKey: 'sk-local-0123456789-abcd' });
    cleanups(t)(() => server.close());
    const none = await api.call('PUT', '/api/setup', { model: { default: 'openai:qwen2.5:7b' } });
    assert.equal(none.json.check.status, 'not_configured');
    const wrongKey = await api.call('PUT', '/api/setup', { providers: { openai: { baseUrl: `${server.url}/`, apiKey: 'sk-wrong' } } });
    assert.equal(wrongKey.json.check.status, 'unreachable');
    assert.match(wrongKey.json.check.message, /answered 401 \(the key was refused\)/);
    const put = await api.call('PUT', '/api/setup', { providers: { openai: { apiKey: 'sk-local-0123456789-abcd' } } });
    assert.equal(put.status, 200, put.body);
    assert.deepEqual(put.json.providers.openai, { apiKeySet: true, apiKeyHint: 'sk-l…abcd', baseUrl: server.url });
    assert.deepEqual(put.json.check, { status: 'ok', message: `openai:qwen2.5:7b: the OpenAI-compatible server at ${server.url} lists qwen2.5:7b` });
    assert.match(fs.readFileSync(path.join(api.home, 'config.toml'), 'utf8'), new RegExp(`\\[providers\\.openai\\]\napi_key = "sk-local-0123456789-abcd"\nbase_url = "${server.url}"\n`));
  });
});
