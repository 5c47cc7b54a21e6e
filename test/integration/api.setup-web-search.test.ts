/**
 * Web search in Setup, through the real HTTP API on 127.0.0.1: SearXNG, then Brave, then
 * Staan with its market, each key named as an environment variable, are written to config.toml with its comments
 * kept; bad values are refused naming the field; and a chat agent's web_search then asks
 * the fake search server the save named, at once (the engine's config is reloaded).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { buildApi } from '../../api/index.js';
import { listen } from '../support/api.js';
import { AUTH, TEST_TOKEN } from '../support/token.js';
import { chatSetup, perAgent, profile } from '../../testkit/chat.js';
import type { FakeModelServer } from '../../testkit/fake-models.js';
import { cleanups } from '../../testkit/cleanup.js';
import { waitFor } from '../../testkit/wait.js';

const KEY_VAR = 'KW_TEST_SETUP_BRAVE_KEY';
const KEY = 'brave-key-from-the-environment-0123';
/** Whether the machine's own BRAVE_API_KEY / STAAN_API_KEY are set: Setup reports them. */
const ENV_KEYS = { brave: Boolean(process.env.BRAVE_API_KEY), staan: Boolean(process.env.STAAN_API_KEY) };

const COMMENTS = `# web search: chosen in Setup
[chat]
max_depth = 2 # not touched by Setup
`;

interface Seen {
  path: string;
  query: URLSearchParams;
  token: string | undefined;
  bearer: string | undefined;
}

/** One server playing SearXNG (`/searx/search`), Brave (`/brave`) and Staan (`/staan`), recording every request. */
async function fakeSearch(t: TestContext): Promise<{ base: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    seen.push({ path: url.pathname, query: url.searchParams, token: req.headers['x-subscription-token'] as string | undefined, bearer: req.headers.authorization });
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(url.pathname === '/brave'
      ? { web: { results: [{ title: 'Found by Brave', url: 'https://brave.example/kw', description: 'from the fake Brave' }] } }
      : url.pathname === '/staan' ? { web: { results: [{ title: 'Found by Staan', url: 'https://staan.example/kw', snippet: 'from the fake Staan' }] } }
      : { results: [{ title: 'Found by SearXNG', url: 'https://searx.example/kw', content: 'from the fake SearXNG' }] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups(t)(() => {
    server.closeAllConnections();
    server.close();
  });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

async function call(base: string, method: string, url: string, body?: unknown): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}${url}`, {
    method, headers: { ...AUTH, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: await res.json() };
}

/** Ask the searcher agent once; resolves with the tool result the model was given back. */
async function search(base: string, model: FakeModelServer, id: string, text: string): Promise<string> {
  const before = model.requests.length;
  const sent = await call(base, 'POST', `/api/chat/sessions/${id}/messages`, { text });
  assert.equal(sent.status, 202, JSON.stringify(sent.json));
  await waitFor(async () => (await call(base, 'GET', `/api/chat/sessions/${id}`)).json.state === 'idle' && model.requests.length >= before + 2, 'the turn to end');
  const messages: any[] = model.requests[before + 1]!.body.messages;
  return String(messages.filter((m) => m.role === 'tool').at(-1)?.content ?? '');
}

test('Setup saves SearXNG, then Brave, then Staan (each key named as a variable) with config.toml comments kept; web_search uses each at once', async (t) => {
  process.env[KEY_VAR] = KEY;
  cleanups(t)(() => delete process.env[KEY_VAR]);
  const srv = await fakeSearch(t);
  const s = await chatSetup(t, perAgent({
    searcher: [{ toolCalls: [{ name: 'web_search', arguments: { query: 'kowalski runtime' } }] }, { text: 'Done.' }],
  }), { searcher: profile('searcher', 'tools = ["web_search"]') }, COMMENTS);
  const api = await buildApi(s.engine, { token: TEST_TOKEN, port: 0 });
  cleanups(t)(() => api.app.close());
  const { base } = await listen(api);
  const file = path.join(s.home, 'config.toml');
  const before = fs.readFileSync(file, 'utf8');

  const none = await call(base, 'GET', '/api/setup');
  assert.deepEqual(none.json.webSearch, { provider: null, url: null, apiKeyEnv: null, apiKeyEnvSet: false, envKeySet: ENV_KEYS, market: null, apiKeyHint: null });

  const searx = await call(base, 'PUT', '/api/setup', { webSearch: { provider: 'searxng', url: `${srv.base}/searx/` } });
  assert.equal(searx.status, 200, JSON.stringify(searx.json));
  assert.equal(searx.json.written.comments, 'kept');
  assert.equal(searx.json.webSearch.provider, 'searxng');
  assert.equal(searx.json.webSearch.url, `${srv.base}/searx`);
  assert.equal(fs.readFileSync(file, 'utf8'), `${before}\n[tools.web_search]\nprovider = "searxng"\nurl = "${srv.base}/searx"\n`);

  const session = await call(base, 'POST', '/api/chat/sessions', { agent: 'searcher' });
  assert.equal(session.status, 201);
  const id: string = session.json.id;
  const fromSearx = await search(base, s.server, id, 'search for kowalski');
  assert.match(fromSearx, /Found by SearXNG/);
  assert.equal(srv.seen.at(-1)!.path, '/searx/search');
  assert.equal(srv.seen.at(-1)!.query.get('q'), 'kowalski runtime');

  const brave = await call(base, 'PUT', '/api/setup', { webSearch: { provider: 'brave', url: `${srv.base}/brave`, apiKeyEnv: KEY_VAR } });
  assert.equal(brave.status, 200, JSON.stringify(brave.json));
  assert.equal(brave.json.written.comments, 'kept');
  assert.deepEqual(brave.json.webSearch, { provider: 'brave', url: `${srv.base}/brave`, apiKeyEnv: KEY_VAR, apiKeyEnvSet: true, envKeySet: ENV_KEYS, market: null, apiKeyHint: null });
  const text = fs.readFileSync(file, 'utf8');
  assert.equal(text, `${before}\n[tools.web_search]\nprovider = "brave"\nurl = "${srv.base}/brave"\napi_key_env = "${KEY_VAR}"\n`);
  assert.equal(text.includes(KEY), false, 'the key itself is never written');
  assert.equal(JSON.stringify((await call(base, 'GET', '/api/setup')).json).includes(KEY), false, 'nor sent back');

  const fromBrave = await search(base, s.server, id, 'search again');
  assert.match(fromBrave, /Found by Brave/);
  assert.equal(srv.seen.at(-1)!.path, '/brave');
  assert.equal(srv.seen.at(-1)!.token, KEY, 'the key came from the variable the file names');

  // Staan: the same variable, a market; Brave's keys that Staan reads stay, the others follow the patch.
  const staan = await call(base, 'PUT', '/api/setup', { webSearch: { provider: 'staan', url: `${srv.base}/staan`, apiKeyEnv: KEY_VAR, market: 'fr-fr' } });
  assert.equal(staan.status, 200, JSON.stringify(staan.json));
  assert.deepEqual(staan.json.webSearch, { provider: 'staan', url: `${srv.base}/staan`, apiKeyEnv: KEY_VAR, apiKeyEnvSet: true, envKeySet: ENV_KEYS, market: 'fr-fr', apiKeyHint: null });
  assert.equal(fs.readFileSync(file, 'utf8'), `${before}\n[tools.web_search]\nprovider = "staan"\nurl = "${srv.base}/staan"\napi_key_env = "${KEY_VAR}"\nmarket = "fr-fr"\n`);
  const fromStaan = await search(base, s.server, id, 'and once more');
  assert.match(fromStaan, /Found by Staan/);
  assert.equal(srv.seen.at(-1)!.path, '/staan');
  assert.equal(srv.seen.at(-1)!.bearer, `Bearer ${KEY}`);
  assert.equal(srv.seen.at(-1)!.query.get('market'), 'fr-fr');

  // No provider: the table's keys go, the comments stay.
  const off = await call(base, 'PUT', '/api/setup', { webSearch: { provider: null } });
  assert.equal(off.status, 200, JSON.stringify(off.json));
  assert.equal(off.json.webSearch.provider, null);
  assert.equal(s.engine.config.webSearch, null);
  assert.equal(off.json.written.comments, 'kept', off.json.written.message);
  assert.equal(fs.readFileSync(file, 'utf8'), `${before}\n[tools.web_search]\n`, 'the comments and the other keys are still there; the empty table means no setting');
});

test('bad web search values are refused naming the field, and config.toml is left as it was', async (t) => {
  const s = await chatSetup(t, [], {}, COMMENTS);
  const api = await buildApi(s.engine, { token: TEST_TOKEN, port: 0 });
  cleanups(t)(() => api.app.close());
  const { base } = await listen(api);
  const file = path.join(s.home, 'config.toml');
  const before = fs.readFileSync(file, 'utf8');
  const unset = 'KW_TEST_SETUP_NEVER_SET';
  delete process.env[unset];
  const cases: [unknown, string, RegExp][] = [
    [{ provider: 'searxng' }, 'webSearch.url', /SearXNG needs the address/],
    [{ provider: 'searxng', url: 'ftp://host' }, 'webSearch.url', /http:\/\/ or https:\/\//],
    [{ provider: 'searxng', url: 'http://127.0.0.1:8888', apiKeyEnv: 'X' }, 'webSearch.apiKeyEnv', /SearXNG takes no key/],
    [{ provider: 'brave', apiKeyEnv: 'brave key=abc' }, 'webSearch.apiKeyEnv', /environment variable's name/],
    [{ provider: 'brave', apiKeyEnv: unset }, 'webSearch.apiKeyEnv', new RegExp(`${unset} is not set`)],
    [{ provider: 'brave', apiKeyEnv: 'PATH', market: 'en-us' }, 'webSearch.market', /only Staan takes a market/],
    [{ provider: 'staan', apiKeyEnv: 'PATH', market: 'French' }, 'webSearch.market', /e\.g\. "en-us"/],
    [{ provider: 'staan', apiKeyEnv: unset }, 'webSearch.apiKeyEnv', new RegExp(`${unset} is not set.*Staan's key`)],
  ];
  if (!process.env.STAAN_API_KEY) cases.push([{ provider: 'staan' }, 'webSearch.apiKeyEnv', /Staan needs a key.*STAAN_API_KEY/]);
  if (!process.env.BRAVE_API_KEY) cases.push([{ provider: 'brave' }, 'webSearch.apiKeyEnv', /Brave needs a key/]);
  for (const [webSearch, key, words] of cases) {
    const res = await call(base, 'PUT', '/api/setup', { webSearch });
    assert.equal(res.status, 400, JSON.stringify(webSearch));
    assert.equal(res.json.error.code, 'KW_ERR_BAD_REQUEST');
    assert.ok(res.json.error.message.startsWith(`${key}: `), res.json.error.message);
    assert.match(res.json.error.message, words);
  }
  const schema = await call(base, 'PUT', '/api/setup', { webSearch: { provider: 'bing' } });
  assert.equal(schema.status, 400);
  assert.match(schema.json.error.message, /webSearch\/provider/);
  assert.equal(fs.readFileSync(file, 'utf8'), before);
});
