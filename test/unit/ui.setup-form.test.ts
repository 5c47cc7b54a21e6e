/** The Setup screen's web search fields: what the form shows of a Setup, the patch it sends, its own checks, and which field a server error lands on. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkSetup, fieldOfServerError, formFromSetup, patchFrom } from '../../ui/src/setup-form.js';
import type { Setup } from '../../ui/src/types.js';

const keyed = { apiKeySet: false, apiKeyHint: null, baseUrl: null };
const SETUP: Setup = {
  configFile: '/data/config.toml',
  model: { default: 'ollama:qwen2.5:7b', toolCalling: 'auto' },
  providers: { ollama: { host: null }, anthropic: keyed, gemini: keyed, openai: keyed },
  tools: { root: null },
  vault: { semantic: { enabled: false, model: 'ollama:nomic-embed-text' } },
  webSearch: { provider: 'brave', url: null, apiKeyEnv: 'BRAVE_KEY', apiKeyEnvSet: true, envKeySet: { brave: false, staan: false }, market: null, apiKeyHint: null },
};

test('the web search fields: shown from the Setup, sent only when changed, a whole section each time', () => {
  const initial = formFromSetup(SETUP);
  assert.deepEqual([initial.webSearchProvider, initial.webSearchUrl, initial.webSearchKeyEnv], ['brave', '', 'BRAVE_KEY']);
  assert.deepEqual(patchFrom(initial, initial), {});
  assert.deepEqual(patchFrom(initial, { ...initial, webSearchKeyEnv: ' OTHER_KEY ' }), { webSearch: { provider: 'brave', url: null, apiKeyEnv: 'OTHER_KEY', market: null } });
  assert.deepEqual(patchFrom(initial, { ...initial, webSearchProvider: 'searxng', webSearchUrl: 'http://127.0.0.1:8888' }),
    { webSearch: { provider: 'searxng', url: 'http://127.0.0.1:8888', apiKeyEnv: null, market: null } });
  assert.deepEqual(patchFrom(initial, { ...initial, webSearchProvider: 'staan', webSearchKeyEnv: 'STAAN_KEY', webSearchMarket: ' fr-fr ' }),
    { webSearch: { provider: 'staan', url: null, apiKeyEnv: 'STAAN_KEY', market: 'fr-fr' } });
  const staan = formFromSetup({ ...SETUP, webSearch: { ...SETUP.webSearch, provider: 'staan', apiKeyEnv: null, market: 'de-de' } });
  assert.deepEqual([staan.webSearchProvider, staan.webSearchKeyEnv, staan.webSearchMarket], ['staan', '', 'de-de']);
  assert.deepEqual(patchFrom(initial, { ...initial, webSearchProvider: '' }), { webSearch: { provider: null } });
  assert.equal(formFromSetup({ ...SETUP, webSearch: { ...SETUP.webSearch, provider: null, apiKeyEnv: null } }).webSearchProvider, '');
});

test('the form refuses a SearXNG without an address, a URL that is not http(s), and a key typed where a variable name goes', () => {
  const f = formFromSetup(SETUP);
  assert.match(checkSetup({ ...f, webSearchProvider: 'searxng', webSearchUrl: ' ' }).webSearchUrl ?? '', /SearXNG needs the address/);
  assert.match(checkSetup({ ...f, webSearchUrl: 'ftp://x' }).webSearchUrl ?? '', /http:\/\/ or https:\/\//);
  assert.match(checkSetup({ ...f, webSearchKeyEnv: 'BSAx 12-34' }).webSearchKeyEnv ?? '', /never the key itself/);
  assert.match(checkSetup({ ...f, webSearchProvider: 'staan', webSearchKeyEnv: 'sk 1' }).webSearchKeyEnv ?? '', /e\.g\. STAAN_KEY: never the key itself/);
  assert.match(checkSetup({ ...f, webSearchProvider: 'staan', webSearchMarket: 'French' }).webSearchMarket ?? '', /e\.g\. en-us/);
  assert.deepEqual(checkSetup({ ...f, webSearchProvider: 'staan', webSearchMarket: 'fr-fr' }), {});
  assert.deepEqual(checkSetup(f), {});
  assert.equal(fieldOfServerError('webSearch.market: must be a language and a country'), 'webSearchMarket');
  assert.equal(fieldOfServerError('webSearch.apiKeyEnv: the environment variable X is not set'), 'webSearchKeyEnv');
  assert.equal(fieldOfServerError('webSearch.url: must be an http:// or https:// URL'), 'webSearchUrl');
  assert.equal(fieldOfServerError('body/webSearch/provider must be equal to one of the allowed values'), 'webSearchProvider');
});
