/**
 * The one bounded reader of a response body (agents/net/read-bounded.ts), through each of
 * its callers against a real server on 127.0.0.1 that never stops sending: each stops
 * reading at its bound, closes the connection, and fails in its own words and code.
 */
import assert from 'node:assert/strict';
import type http from 'node:http';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { createWebSearchTool, fetchRaw, readBounded, webSearchConfigFrom } from '../../agents/index.js';
import type { KowalskiError } from '../../core/index.js';
import { davFetch } from '../../engine/adapters/calendar/dav-fetch.js';
import { API_MAX_ANSWER_BYTES, callJson } from '../../engine/adapters/json-api.js';
import { serveHttp } from '../support/http.js';
import type { LocalServer } from '../support/http.js';
import { waitFor } from '../../testkit/wait.js';

const CHUNK = Buffer.alloc(64 * 1024, '[');

/** A server whose answer never ends; `closed()` once the client hung up on it. */
async function endless(t: TestContext): Promise<LocalServer & { closed(): boolean }> {
  let closed = false;
  const server = await serveHttp(t, (_req: http.IncomingMessage, res: http.ServerResponse) => {
    res.on('close', () => { closed = true; });
    res.writeHead(200, { 'content-type': 'application/json' });
    const more = (): void => {
      while (!res.destroyed && res.write(CHUNK));
    };
    res.on('drain', more);
    more();
  });
  return { ...server, closed: () => closed };
}

async function refused(p: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  await assert.rejects(p, (err: KowalskiError) => {
    assert.equal(err.code, code, err.message);
    assert.match(err.message, message);
    return true;
  });
}

test('the reader gives the bytes up to its bound, an empty buffer for no body, and null past the bound', async () => {
  const chunks = async function* (): AsyncGenerator<Uint8Array> {
    yield Buffer.from('héllo ');
    yield Buffer.from('world');
  };
  assert.equal((await readBounded(chunks(), 12))?.toString('utf8'), 'héllo world');
  assert.equal(await readBounded(chunks(), 11), null);
  assert.deepEqual(await readBounded(null, 0), Buffer.alloc(0));
});

test('the CalDAV fetch: KW_ERR_CALENDAR_SOURCE past its bound, the connection closed; a smaller answer arrives whole', async (t) => {
  const server = await endless(t);
  await refused(davFetch({ maxBytes: 200_000 })(`${server.origin}/cal/`), 'KW_ERR_CALENDAR_SOURCE', /^CalDAV http:\/\/127\.0\.0\.1:\d+\/cal\/: the answer is larger than 200000 bytes; it was cut off$/);
  await waitFor(server.closed, 'the CalDAV server to see the client hang up');

  const small = await serveHttp(t, (_req, res) => res.writeHead(207).end('<multistatus/>'));
  const res = await davFetch({ maxBytes: 14 })(`${small.origin}/cal/`);
  assert.equal(res.status, 207);
  assert.equal(await res.text(), '<multistatus/>');
});

test("web_fetch's request (a plugin's kowalski.fetch): KW_ERR_FETCH_LIMIT past its bound, the connection closed", async (t) => {
  const server = await endless(t);
  await refused(fetchRaw(`${server.origin}/big`, {}, { testOnlyAllow: [server.allow], maxBytes: 300_000 }), 'KW_ERR_FETCH_LIMIT', /larger than 300000 bytes \(after decompression\)/);
  await waitFor(server.closed, 'the server to see the client hang up');
});

test('web_search: KW_ERR_SEARCH_FAILED naming the bound, the connection closed', async (t) => {
  const server = await endless(t);
  const tool = createWebSearchTool(webSearchConfigFrom({ tools: { web_search: { provider: 'searxng', url: server.origin } } }, '/tmp/config.toml', {}));
  await refused(tool.call({ query: 'q' }, { signal: new AbortController().signal }), 'KW_ERR_SEARCH_FAILED', /SearXNG at http:\/\/127\.0\.0\.1:\d+ answered more than 4194304 bytes/);
  await waitFor(server.closed, 'the search engine to see the client hang up');
});

test("a chat service's Web API call: the caller's code naming the bound, the connection closed", async (t) => {
  const server = await endless(t);
  const timers = {
    setTimeout(fn: () => void, ms: number) {
      const timer = setTimeout(fn, ms);
      return { cancel: () => clearTimeout(timer) };
    },
  };
  const call = callJson({ method: 'POST', url: `${server.origin}/chat.postMessage`, headers: {}, body: {}, what: 'Slack chat.postMessage', code: 'KW_ERR_ADAPTER_REPLY' }, timers);
  await refused(call, 'KW_ERR_ADAPTER_REPLY', new RegExp(`^Slack chat\\.postMessage answered more than ${API_MAX_ANSWER_BYTES} bytes$`));
  await waitFor(server.closed, 'the Web API to see the client hang up');
});
