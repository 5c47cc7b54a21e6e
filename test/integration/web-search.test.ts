/** web_search against fake SearXNG, Brave and Staan servers on 127.0.0.1, and [tools.web_search] as read from config.toml. */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { Ajv } from 'ajv';
import { parse } from 'smol-toml';
import { createWebSearchTool, webSearchConfigFrom } from '../../agents/index.js';
import type { WebSearchConfig } from '../../agents/index.js';
import type { KowalskiError } from '../../core/index.js';
import { cleanups } from '../../testkit/cleanup.js';

const FILE = '/home/me/.local/share/kowalski/config.toml';
const ctx = { signal: new AbortController().signal };

interface Seen {
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
}

/** A server that records every request and answers with `reply`. */
async function fake(t: TestContext, reply: (res: http.ServerResponse, seen: Seen) => void): Promise<{ base: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, 'http://x');
    const s = { path: url.pathname, query: url.searchParams, headers: req.headers };
    seen.push(s);
    reply(res, s);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups(t)(() => {
    server.closeAllConnections();
    server.close();
  });
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

function json(body: unknown, status = 200): (res: http.ServerResponse) => void {
  return (res) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
}

const config = (section: Record<string, unknown>, env: NodeJS.ProcessEnv = {}): WebSearchConfig | null =>
  webSearchConfigFrom({ tools: { web_search: section } }, FILE, env);

async function fails(p: Promise<unknown>, code: string, ...parts: string[]): Promise<KowalskiError> {
  let caught: KowalskiError | undefined;
  await assert.rejects(p, (err: KowalskiError) => {
    assert.equal(err.code, code, err.message);
    for (const part of parts) assert.ok(err.message.includes(part), `${JSON.stringify(err.message)} should name ${JSON.stringify(part)}`);
    caught = err;
    return true;
  });
  return caught!;
}

test('SearXNG: the query goes to <url>/search with format=json; the first `count` results come back as a Markdown list', async (t) => {
  const srv = await fake(t, json({
    query: 'x',
    results: [
      { title: 'Kowalski — agent runtime', url: 'https://example.com/kw', content: 'Local-first &amp; durable.\n  Runs <b>hordes</b>.', engine: 'ddg' },
      { title: '', url: 'https://example.org/untitled', content: '' },
      { title: 'Third', url: 'https://example.net/3', content: 'not asked for' },
    ],
  }));
  const tool = createWebSearchTool(config({ provider: 'searxng', url: `${srv.base}/searx/` }));
  const out = await tool.call({ query: 'kowalski "agent" runtime & more', count: 2 }, ctx);
  assert.equal(srv.seen.length, 1);
  assert.equal(srv.seen[0]!.path, '/searx/search');
  assert.equal(srv.seen[0]!.query.get('q'), 'kowalski "agent" runtime & more');
  assert.equal(srv.seen[0]!.query.get('format'), 'json');
  assert.equal(out.content, [
    'Results for "kowalski \\"agent\\" runtime & more" (SearXNG):',
    '',
    '1. Kowalski — agent runtime',
    '   https://example.com/kw',
    '   Local-first & durable. Runs hordes.',
    '2. https://example.org/untitled',
    '   https://example.org/untitled',
  ].join('\n'));
  assert.deepEqual(out.meta, { engine: 'searxng', results: 2, urls: ['https://example.com/kw', 'https://example.org/untitled'] });
});

test('Brave: the key goes in X-Subscription-Token, count in the query; BRAVE_API_KEY wins over api_key; no `web` means no results', async (t) => {
  let answer: unknown = {
    web: { results: [{ title: '<strong>Kowalski</strong> &amp; co', url: 'https://brave.example/kw', description: 'A <strong>local</strong> runtime' }] },
  };
  const srv = await fake(t, (res) => json(answer)(res));
  const tool = createWebSearchTool(config({ provider: 'brave', api_key: 'file-key', url: `${srv.base}/res/v1/web/search` }));
  const out = await tool.call({ query: 'kowalski', count: 3 }, ctx);
  assert.equal(srv.seen[0]!.path, '/res/v1/web/search');
  assert.equal(srv.seen[0]!.headers['x-subscription-token'], 'file-key');
  assert.equal(srv.seen[0]!.query.get('q'), 'kowalski');
  assert.equal(srv.seen[0]!.query.get('count'), '3');
  assert.equal(out.content, 'Results for "kowalski" (Brave Search):\n\n1. Kowalski & co\n   https://brave.example/kw\n   A local runtime');

  const fromEnv = createWebSearchTool(config({ provider: 'brave', api_key: 'file-key', url: srv.base }, { BRAVE_API_KEY: 'env-key' }));
  answer = { query: { original: 'nothing' } };
  const none = await fromEnv.call({ query: 'nothing at all' }, ctx);
  assert.equal(srv.seen[1]!.headers['x-subscription-token'], 'env-key');
  assert.equal(srv.seen[1]!.query.get('count'), '5', 'count defaults to 5');
  assert.equal(none.content, 'No results for "nothing at all" (Brave Search).');
});

test('Staan: the key goes as a Bearer token, the market in the query, no count (its page is always ten); STAAN_API_KEY wins over api_key', async (t) => {
  const ten = Array.from({ length: 10 }, (_, i) => ({ url: `https://staan.example/${i + 1}`, title: `Hit <b>${i + 1}</b>`, snippet: `About &quot;${i + 1}&quot;` }));
  let answer: unknown = { web: { results: ten } };
  const srv = await fake(t, (res) => json(answer)(res));
  const tool = createWebSearchTool(config({ provider: 'staan', api_key: 'file-key', market: 'fr-fr', url: `${srv.base}/v2/search/web` }));
  const out = await tool.call({ query: 'météo Paris', count: 2 }, ctx);
  assert.equal(srv.seen[0]!.path, '/v2/search/web');
  assert.equal(srv.seen[0]!.headers.authorization, 'Bearer file-key');
  assert.equal(srv.seen[0]!.query.get('q'), 'météo Paris');
  assert.equal(srv.seen[0]!.query.get('market'), 'fr-fr');
  assert.equal(srv.seen[0]!.query.has('count'), false, 'Staan refuses any count but its own');
  assert.equal(out.content, 'Results for "météo Paris" (Staan):\n\n1. Hit 1\n   https://staan.example/1\n   About "1"\n2. Hit 2\n   https://staan.example/2\n   About "2"');
  assert.deepEqual(out.meta, { engine: 'staan', results: 2, urls: ['https://staan.example/1', 'https://staan.example/2'] });

  const fromEnv = createWebSearchTool(config({ provider: 'staan', api_key: 'file-key', url: srv.base }, { STAAN_API_KEY: 'env-key' }));
  answer = { web: { results: [] } };
  const none = await fromEnv.call({ query: 'nothing at all' }, ctx);
  assert.equal(srv.seen[1]!.headers.authorization, 'Bearer env-key');
  assert.equal(srv.seen[1]!.query.get('market'), 'en-us', 'the market defaults to en-us');
  assert.equal(none.content, 'No results for "nothing at all" (Staan).');
});

test('with no engine configured the tool still exists, and calling it says what to put in config.toml', async () => {
  assert.equal(webSearchConfigFrom({}, FILE), null);
  assert.equal(webSearchConfigFrom({ tools: { root: '~/files' } }, FILE), null);
  const tool = createWebSearchTool(null);
  assert.equal(tool.spec.name, 'web_search');
  const err = await fails(tool.call({ query: 'anything' }, ctx), 'KW_ERR_SEARCH_UNCONFIGURED', '[tools.web_search]', 'provider = "searxng"', 'url = "http://', 'provider = "brave"', 'BRAVE_API_KEY', 'provider = "staan"', 'STAAN_API_KEY');
  assert.equal(err.retryable, false);
});

test('an HTTP error names the engine, its address and the status, with a hint; the key never appears', async (t) => {
  const srv = await fake(t, (res, seen) => {
    res.writeHead(seen.path === '/search' ? 500 : 401);
    res.end('nope');
  });
  const err = await fails(createWebSearchTool(config({ provider: 'searxng', url: srv.base })).call({ query: 'q' }, ctx),
    'KW_ERR_SEARCH_FAILED', 'SearXNG', srv.base, 'HTTP 500');
  assert.equal(err.retryable, true);
  const brave = await fails(createWebSearchTool(config({ provider: 'brave', api_key: 'sk-very-secret', url: `${srv.base}/brave` })).call({ query: 'q' }, ctx),
    'KW_ERR_SEARCH_FAILED', 'Brave Search', 'HTTP 401', 'API key was refused', 'BRAVE_API_KEY');
  assert.ok(!brave.message.includes('sk-very-secret'));
  const staan = await fails(createWebSearchTool(config({ provider: 'staan', api_key: 'sk-very-secret', url: `${srv.base}/staan` })).call({ query: 'q' }, ctx),
    'KW_ERR_SEARCH_FAILED', 'Staan', 'HTTP 401', 'API key was refused', 'STAAN_API_KEY');
  assert.ok(!staan.message.includes('sk-very-secret'));
});

test('an answer that is not JSON, or JSON without a result list, is KW_ERR_SEARCH_FAILED', async (t) => {
  let body = '<html>SearXNG</html>';
  const srv = await fake(t, (res) => json(body)(res));
  const tool = createWebSearchTool(config({ provider: 'searxng', url: srv.base }));
  await fails(tool.call({ query: 'q' }, ctx), 'KW_ERR_SEARCH_FAILED', 'SearXNG', 'HTTP 200', 'not JSON');
  body = '{"answers": []}';
  await fails(tool.call({ query: 'q' }, ctx), 'KW_ERR_SEARCH_FAILED', 'no result list');
});

test('an engine that never answers fails at the time limit; a cancelled call rejects with the cancel reason', async (t) => {
  // Never answers: each request hangs until the client gives up; `arrived` tells the test it is there.
  let arrived = (): void => undefined;
  const srv = await fake(t, () => arrived());
  const slow = createWebSearchTool(config({ provider: 'searxng', url: srv.base }), { timeoutMs: 200 });
  await fails(slow.call({ query: 'q' }, ctx), 'KW_ERR_SEARCH_FAILED', 'did not answer within 0.2 s');

  const patient = createWebSearchTool(config({ provider: 'searxng', url: srv.base }));
  const controller = new AbortController();
  const hanging = new Promise<void>((resolve) => {
    arrived = resolve;
  });
  const call = patient.call({ query: 'q' }, { signal: controller.signal });
  await hanging;
  controller.abort(new Error('run cancelled'));
  await assert.rejects(call, /run cancelled/);
});

test('an engine that is not listening is KW_ERR_SEARCH_FAILED naming the connection error', async () => {
  const closed = http.createServer();
  await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
  const port = (closed.address() as AddressInfo).port;
  await new Promise((resolve) => closed.close(resolve));
  await fails(createWebSearchTool(config({ provider: 'searxng', url: `http://127.0.0.1:${port}` })).call({ query: 'q' }, ctx),
    'KW_ERR_SEARCH_FAILED', `http://127.0.0.1:${port}`, 'cannot be reached (ECONNREFUSED)');
});

test('[tools.web_search] from real TOML: every bad value is KW_ERR_CONFIG_INVALID naming the file and tools.web_search.<key>', () => {
  assert.deepEqual(webSearchConfigFrom(parse('[tools.web_search]\nprovider = "searxng"\nurl = "http://127.0.0.1:8888/"\n'), FILE, {}),
    { provider: 'searxng', url: 'http://127.0.0.1:8888' });
  assert.deepEqual(webSearchConfigFrom(parse('[tools.web_search]\nprovider = "brave"\napi_key = "k1"\n'), FILE, {}),
    { provider: 'brave', url: 'https://api.search.brave.com/res/v1/web/search', apiKey: 'k1' });
  assert.deepEqual(webSearchConfigFrom(parse('[tools.web_search]\nprovider = "brave"\n'), FILE, { BRAVE_API_KEY: 'k2' }),
    { provider: 'brave', url: 'https://api.search.brave.com/res/v1/web/search', apiKey: 'k2' });
  assert.deepEqual(webSearchConfigFrom(parse('[tools.web_search]\nprovider = "staan"\napi_key = "k1"\n'), FILE, {}),
    { provider: 'staan', url: 'https://api.staan.ai/v2/search/web', apiKey: 'k1', market: 'en-us' });
  assert.deepEqual(webSearchConfigFrom(parse('[tools.web_search]\nprovider = "staan"\napi_key_env = "MY_STAAN"\nmarket = "de-de"\n'), FILE, { MY_STAAN: 'k4', STAAN_API_KEY: 'k5' }),
    { provider: 'staan', url: 'https://api.staan.ai/v2/search/web', apiKey: 'k4', market: 'de-de' });
  assert.equal(webSearchConfigFrom(parse('[tools.web_search] # none for now\n'), FILE, {}), null, 'an empty table is no setting');
  // api_key_env names the variable; it wins over BRAVE_API_KEY, which wins over api_key.
  const named = '[tools.web_search]\nprovider = "brave"\napi_key_env = "MY_BRAVE"\napi_key = "k1"\n';
  assert.equal((webSearchConfigFrom(parse(named), FILE, { MY_BRAVE: 'k3', BRAVE_API_KEY: 'k2' }) as { apiKey: string }).apiKey, 'k3');
  assert.equal((webSearchConfigFrom(parse('[tools.web_search]\nprovider = "brave"\napi_key = "k1"\n'), FILE, { BRAVE_API_KEY: 'k2' }) as { apiKey: string }).apiKey, 'k2');

  const cases: [string, string, string][] = [
    ['[tools.web_search]\nprovider = "bing"\n', 'tools.web_search.provider', '"searxng", "brave" or "staan"'],
    ['[tools.web_search]\nprovider = "staan"\n', 'tools.web_search.api_key', 'STAAN_API_KEY'],
    ['[tools.web_search]\nprovider = "staan"\napi_key = "k"\nmarket = "French"\n', 'tools.web_search.market', 'e.g. "en-us"'],
    ['[tools.web_search]\nprovider = "staan"\napi_key_env = "KW_UNSET_STAAN"\n', 'tools.web_search.api_key_env', "set it to Staan's key"],
    ['[tools.web_search]\nprovider = "brave"\napi_key = "k"\nmarket = "en-us"\n', 'tools.web_search.market', 'only for provider = "staan"'],
    ['[tools.web_search]\nurl = "http://127.0.0.1:8888"\n', 'tools.web_search.provider', 'not null'],
    ['[tools.web_search]\nprovider = "searxng"\n', 'tools.web_search.url', 'url = "http://127.0.0.1:8888"'],
    ['[tools.web_search]\nprovider = "searxng"\nurl = "ftp://host"\n', 'tools.web_search.url', 'http:// or https://'],
    ['[tools.web_search]\nprovider = "searxng"\nurl = 8888\n', 'tools.web_search.url', 'http:// or https://'],
    ['[tools.web_search]\nprovider = "brave"\n', 'tools.web_search.api_key', 'BRAVE_API_KEY'],
    ['[tools.web_search]\nprovider = "brave"\napi_key = "two words"\n', 'tools.web_search.api_key', 'without spaces'],
    ['[tools.web_search]\nprovider = "brave"\napi_key = "k"\nurl = "localhost"\n', 'tools.web_search.url', 'http:// or https://'],
    ['[tools.web_search]\nprovider = "brave"\napi_key_env = "1BAD-NAME"\n', 'tools.web_search.api_key_env', 'must name an environment variable'],
    ['[tools.web_search]\nprovider = "brave"\napi_key_env = 7\n', 'tools.web_search.api_key_env', 'must name an environment variable'],
    ['[tools.web_search]\nprovider = "brave"\napi_key_env = "KW_UNSET_BRAVE"\napi_key = "k1"\n', 'tools.web_search.api_key_env', 'KW_UNSET_BRAVE is not set'],
    ['[tools]\nweb_search = "searxng"\n', 'tools.web_search', 'must be a table'],
    ['tools = 3\n', 'tools', 'must be a table'],
  ];
  for (const [text, key, words] of cases) {
    assert.throws(() => webSearchConfigFrom(parse(text), FILE, {}), (err: KowalskiError) => {
      assert.equal(err.code, 'KW_ERR_CONFIG_INVALID');
      assert.deepEqual(err.where, { file: FILE, key });
      assert.ok(err.message.startsWith(`${FILE}: ${key}: `), err.message);
      assert.ok(err.message.includes(words), err.message);
      return true;
    }, text);
  }
});

test('the schema holds the model to a query and a count of 1 to 10', () => {
  const validate = new Ajv({ strict: false }).compile(createWebSearchTool(null).spec.inputSchema);
  assert.equal(validate({ query: 'x' }), true);
  assert.equal(validate({ query: 'x', count: 10 }), true);
  assert.equal(validate({ query: 'x', count: 11 }), false);
  assert.equal(validate({ query: 'x', count: 0 }), false);
  assert.equal(validate({ query: '' }), false);
  assert.equal(validate({ count: 3 }), false);
});
