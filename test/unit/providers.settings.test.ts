/** ProviderSettings from config.toml and the environment: defaults, every key, env over file, OLLAMA_HOST as the ollama CLI reads it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parse } from 'smol-toml';
import { KowalskiError } from '../../core/index.js';
import { normalizeOllamaHost, providerSettingsFrom } from '../../agents/providers/index.js';

test('an empty config and environment give the defaults', () => {
  assert.deepEqual(providerSettingsFrom({}, {}), {
    ollama: { host: 'http://127.0.0.1:11434' },
    anthropic: {},
    timeoutMs: 120_000,
    maxRetries: 3,
    retryBaseMs: 500,
  });
});

test('every key of config.toml is read', () => {
  const raw = parse(`
[model]
timeout_secs = 30
max_retries = 0
[providers.ollama]
host = "http://gpu-box:11434/"
[providers.anthropic]
api_key = "sk-ant-file"
base_url = "https://proxy.example/anthropic/"
[providers.openai]
base_url = "http://127.0.0.1:1234/v1"
api_key = "lm-studio"
[providers.gemini]
api_key = "AIza-file"
base_url = "https://proxy.example/gemini/"
`);
  assert.deepEqual(providerSettingsFrom(raw, {}), {
    ollama: { host: 'http://gpu-box:11434' },
    anthropic: { apiKey: 'sk-ant-file', baseUrl: 'https://proxy.example/anthropic' },
    openai: { baseUrl: 'http://127.0.0.1:1234/v1', apiKey: 'lm-studio' },
    gemini: { apiKey: 'AIza-file', baseUrl: 'https://proxy.example/gemini' },
    timeoutMs: 30_000,
    maxRetries: 0,
    retryBaseMs: 500,
  });
});

test('the ecosystems\' variables win over the file; empty ones do not count', () => {
  const raw = parse('[providers.ollama]\nhost = "http://file-host:11434"\n[providers.anthropic]\napi_key = "sk-ant-file"\nbase_url = "https://file.example"\n');
  const env = { OLLAMA_HOST: 'env-host:9999', ANTHROPIC_API_KEY: 'sk-ant-env', ANTHROPIC_BASE_URL: 'https://env.example/' };
  const settings = providerSettingsFrom(raw, env);
  assert.equal(settings.ollama.host, 'http://env-host:9999');
  assert.deepEqual(settings.anthropic, { apiKey: 'sk-ant-env', baseUrl: 'https://env.example' });
  const fileOnly = providerSettingsFrom(raw, { OLLAMA_HOST: '', ANTHROPIC_API_KEY: ' ' });
  assert.equal(fileOnly.ollama.host, 'http://file-host:11434');
  assert.equal(fileOnly.anthropic.apiKey, 'sk-ant-file');
});

test('GEMINI_API_KEY and GOOGLE_GEMINI_BASE_URL win over [providers.gemini]; with neither, no gemini settings', () => {
  const raw = parse('[providers.gemini]\napi_key = "AIza-file"\nbase_url = "https://file.example"\n');
  assert.deepEqual(providerSettingsFrom(raw, { GEMINI_API_KEY: 'AIza-env', GOOGLE_GEMINI_BASE_URL: 'http://127.0.0.1:9/' }).gemini, { apiKey: 'AIza-env', baseUrl: 'http://127.0.0.1:9' });
  assert.deepEqual(providerSettingsFrom({}, { GEMINI_API_KEY: 'AIza-env' }).gemini, { apiKey: 'AIza-env' });
  assert.equal(providerSettingsFrom({}, { GEMINI_API_KEY: ' ' }).gemini, undefined);
  assert.throws(() => providerSettingsFrom(parse('[providers.gemini]\nbase_url = "ftp://x"\n'), {}), (err: unknown) => {
    assert.ok(err instanceof KowalskiError && err.code === 'KW_ERR_CONFIG_INVALID' && err.message.includes('providers.gemini.base_url'), String(err));
    return true;
  });
});

test('an Ollama host is normalised like the ollama CLI reads OLLAMA_HOST', () => {
  const cases: Array<[string, string]> = [
    ['0.0.0.0', 'http://127.0.0.1:11434'],
    ['0.0.0.0:11435', 'http://127.0.0.1:11435'],
    ['gpu-box', 'http://gpu-box:11434'],
    ['gpu-box:8080', 'http://gpu-box:8080'],
    ['gpu-box:80', 'http://gpu-box:80'],
    [':11500', 'http://127.0.0.1:11500'],
    ['http://gpu-box', 'http://gpu-box:80'],
    ['https://ollama.example', 'https://ollama.example:443'],
    ['https://ollama.example/base/', 'https://ollama.example:443/base'],
    ['[::1]:11434', 'http://[::1]:11434'],
    ['  http://127.0.0.1:11434  ', 'http://127.0.0.1:11434'],
  ];
  for (const [input, expected] of cases) assert.equal(normalizeOllamaHost(input), expected, input);
});

test('a bad value is KW_ERR_CONFIG_INVALID naming the key or the variable', () => {
  const cases: Array<[Record<string, unknown>, NodeJS.ProcessEnv, string]> = [
    [{ model: { timeout_secs: 0 } }, {}, 'model.timeout_secs'],
    [{ model: { max_retries: 1.5 } }, {}, 'model.max_retries'],
    [{ providers: { anthropic: { api_key: 42 } } }, {}, 'providers.anthropic.api_key'],
    [{ providers: { anthropic: { base_url: 'ftp://x' } } }, {}, 'providers.anthropic.base_url'],
    [{ providers: { ollama: { host: 'ftp://box' } } }, {}, 'providers.ollama.host'],
    [{ providers: { ollama: 'localhost' } }, {}, 'providers.ollama'],
    [{}, { OLLAMA_HOST: 'http://bad host' }, 'OLLAMA_HOST'],
    [{}, { ANTHROPIC_BASE_URL: 'not a url' }, 'ANTHROPIC_BASE_URL'],
  ];
  for (const [raw, env, key] of cases) {
    assert.throws(() => providerSettingsFrom(raw, env), (err: unknown) => {
      assert.ok(err instanceof KowalskiError);
      assert.equal(err.code, 'KW_ERR_CONFIG_INVALID');
      assert.equal(err.where?.key, key);
      assert.ok(err.message.includes(key), err.message);
      return true;
    }, key);
  }
});

test('[providers.openai] with only a key points at OpenAI itself; no table means no openai settings', () => {
  assert.deepEqual(providerSettingsFrom({ providers: { openai: { api_key: 'sk-x' } } }, {}).openai, { baseUrl: 'https://api.openai.com/v1', apiKey: 'sk-x' });
  assert.equal(providerSettingsFrom({}, { OPENAI_API_KEY: 'sk-x' }).openai, undefined);
});
