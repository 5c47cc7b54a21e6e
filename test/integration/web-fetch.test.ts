import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { LookupAddress } from 'node:dns';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import zlib from 'node:zlib';
import { KowalskiError } from '../../core/index.js';
import type { ErrorCode } from '../../core/index.js';
import { createWebFetchTool } from '../../agents/index.js';
import { fetchPage } from '../../agents/net/index.js';
import { serveHttp } from '../support/http.js';
import type { FetchPageOptions, LookupFunction } from '../../agents/index.js';

/** A lookup that answers each call with the next list of addresses (the last one repeats), counting calls. */
function lookupAnswering(...answers: string[][]): { lookup: LookupFunction; calls: string[] } {
  const calls: string[] = [];
  const lookup: LookupFunction = (hostname, _options, callback) => {
    const list = answers[Math.min(calls.length, answers.length - 1)] ?? [];
    calls.push(hostname);
    const addresses: LookupAddress[] = list.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
    process.nextTick(() => callback(null, addresses));
  };
  return { lookup, calls };
}

const noLookup: LookupFunction = (hostname) => assert.fail(`no DNS lookup expected, got one for ${hostname}`);

async function refused(url: string, options: FetchPageOptions, code: ErrorCode, message: RegExp, signal?: AbortSignal): Promise<KowalskiError> {
  const err = await fetchPage(url, options, signal).then(() => assert.fail(`${url} was fetched`), (e: unknown) => e);
  assert.ok(err instanceof KowalskiError, `${url}: ${String(err)}`);
  assert.equal(err.code, code, `${url}: ${err.message}`);
  assert.match(err.message, message, url);
  return err;
}

function page(res: http.ServerResponse, html: string, type = 'text/html; charset=utf-8'): void {
  res.writeHead(200, { 'content-type': type });
  res.end(html);
}

test('every spelling of a refused address is refused before any lookup or connection', async (t) => {
  const target = await serveHttp(t, (_req, res) => page(res, 'secret'));
  const p = target.port;
  const spellings = [
    `http://127.0.0.1:${p}/`, `http://2130706433:${p}/`, `http://0177.0.0.1:${p}/`, `http://0x7f.1:${p}/`, `http://0x7f000001:${p}/`,
    `http://127.1:${p}/`, `http://127.0.0.1.:${p}/`, `http://[::1]:${p}/`, `http://[::ffff:127.0.0.1]:${p}/`, `http://[::ffff:7f00:1]:${p}/`,
    `http://[::127.0.0.1]:${p}/`, `http://[64:ff9b::7f00:1]:${p}/`, `http://[2002:7f00:1::]:${p}/`, `http://0:${p}/`, `http://[::]:${p}/`,
    `http://localhost:${p}/`, `http://localhost.:${p}/`, `http://app.localhost:${p}/`,
    'http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/latest/meta-data/', 'http://100.100.100.200/',
    'http://10.0.0.1/', 'http://172.16.5.4/', 'http://192.168.1.1/', 'http://100.64.0.1/', 'http://[fe80::1]/', 'http://[fc00::1]/',
    'http://224.0.0.1/', 'http://255.255.255.255/', 'http://[2001::1]/',
  ];
  for (const url of spellings) {
    await refused(url, { lookup: noLookup, testOnlyAllow: [`127.0.0.1:${p + 1}`] }, 'KW_ERR_FETCH_BLOCKED', /only public addresses|names this machine/);
  }
  await refused('ftp://example.com/file.txt', { lookup: noLookup }, 'KW_ERR_FETCH_BLOCKED', /scheme ftp: is not fetched/);
  await refused('file:///etc/passwd', { lookup: noLookup }, 'KW_ERR_FETCH_BLOCKED', /scheme file: is not fetched/);
  await refused('not a url', { lookup: noLookup }, 'KW_ERR_FETCH_BLOCKED', /not an absolute URL/);
  assert.equal(target.connections(), 0);
});

test('a public-looking name that resolves to a refused address is refused at connect time, checking every answer', async (t) => {
  const target = await serveHttp(t, (_req, res) => page(res, 'secret'));
  const loop = lookupAnswering(['127.0.0.1']);
  await refused(`http://innocent.example:${target.port}/`, { lookup: loop.lookup }, 'KW_ERR_FETCH_BLOCKED', /innocent\.example.*\(resolved by DNS\): 127\.0\.0\.1 is loopback/);
  // One refused address among public ones is enough: the connection could land on any of them.
  const mixed = lookupAnswering(['93.184.216.34', '2606:2800:220:1::', '169.254.169.254']);
  await refused(`http://mixed.example:${target.port}/`, { lookup: mixed.lookup }, 'KW_ERR_FETCH_BLOCKED', /169\.254\.169\.254 is cloud metadata/);
  const mapped = lookupAnswering(['::ffff:127.0.0.1']);
  await refused(`http://mapped.example:${target.port}/`, { lookup: mapped.lookup }, 'KW_ERR_FETCH_BLOCKED', /IPv4-mapped IPv6 wrapping 127\.0\.0\.1/);
  assert.deepEqual([...loop.calls, ...mixed.calls, ...mapped.calls], ['innocent.example', 'mixed.example', 'mapped.example']);
  assert.equal(target.connections(), 0);
  // The same name is fetched once its address is allowed (the tests' only way onto loopback).
  const ok = await fetchPage(`http://innocent.example:${target.port}/`, { lookup: loop.lookup, testOnlyAllow: [target.allow] });
  assert.equal(ok.markdown, 'secret');
});

test('when the connection to one checked answer fails, the next checked answer is tried', async (t) => {
  const server = await serveHttp(t, (_req, res) => page(res, 'reached', 'text/plain'));
  // Nothing listens on [::1]:<port>: that connection fails and 127.0.0.1 is tried next.
  const dns = lookupAnswering(['::1', '127.0.0.1']);
  const got = await fetchPage(`http://two.example:${server.port}/`, { lookup: dns.lookup, testOnlyAllow: [`[::1]:${server.port}`, server.allow] });
  assert.equal(got.markdown, 'reached');
  assert.deepEqual(dns.calls, ['two.example']);
});

test('redirects into loopback on another port, into metadata, or to a name resolving inward are refused at the redirect', async (t) => {
  const inner = await serveHttp(t, (_req, res) => page(res, 'internal admin'));
  const outer = await serveHttp(t, (req, res) => {
    const to: Record<string, string> = {
      '/to-inner': `http://127.0.0.1:${inner.port}/admin`,
      '/to-metadata': 'http://169.254.169.254/latest/meta-data/iam/',
      '/to-name': `http://rebound.example:${inner.port}/admin`,
      '/to-ftp': 'ftp://example.com/',
    };
    res.writeHead(302, { location: to[req.url ?? ''] ?? '/' });
    res.end();
  });
  const options: FetchPageOptions = { testOnlyAllow: [outer.allow], lookup: lookupAnswering(['127.0.0.1']).lookup };
  await refused(`${outer.origin}/to-inner`, options, 'KW_ERR_FETCH_BLOCKED',
    new RegExp(`127\\.0\\.0\\.1:${inner.port}/admin: 127\\.0\\.0\\.1 is loopback.*reached by a redirect from ${outer.origin}/to-inner`));
  await refused(`${outer.origin}/to-metadata`, options, 'KW_ERR_FETCH_BLOCKED', /169\.254\.169\.254 is cloud metadata.*reached by a redirect/);
  await refused(`${outer.origin}/to-name`, options, 'KW_ERR_FETCH_BLOCKED', /rebound\.example.*\(resolved by DNS\): 127\.0\.0\.1 is loopback.*reached by a redirect/);
  await refused(`${outer.origin}/to-ftp`, options, 'KW_ERR_FETCH_BLOCKED', /scheme ftp:.*reached by a redirect/);
  assert.equal(inner.connections(), 0);
});

test('five redirects are followed; the sixth fails with KW_ERR_FETCH_LIMIT', async (t) => {
  const server = await serveHttp(t, (req, res) => {
    const n = Number(/^\/hop\/(\d+)$/.exec(req.url ?? '')?.[1] ?? 0);
    if (n > 0) {
      res.writeHead(n % 2 === 0 ? 301 : 307, { location: `/hop/${n - 1}` });
      res.end();
    } else {
      page(res, '<title>End</title><p>the end</p>');
    }
  });
  const options = { testOnlyAllow: [server.allow] };
  const done = await fetchPage(`${server.origin}/hop/5`, options);
  assert.equal(done.url, `${server.origin}/hop/0`);
  assert.deepEqual(done.redirects, [5, 4, 3, 2, 1].map((n) => `${server.origin}/hop/${n}`));
  assert.equal(done.title, 'End');
  await refused(`${server.origin}/hop/6`, options, 'KW_ERR_FETCH_LIMIT', /more than 5 redirects/);
  await refused(`${server.origin}/hop/3`, { ...options, maxRedirects: 2 }, 'KW_ERR_FETCH_LIMIT', /more than 2 redirects/);
});

test('a DNS answer that changes between fetches: the first allowed, the second refused, one lookup per fetch', async (t) => {
  const server = await serveHttp(t, (_req, res) => page(res, 'hello', 'text/plain'));
  const dns = lookupAnswering(['127.0.0.1'], ['10.0.0.7']);
  const options = { lookup: dns.lookup, testOnlyAllow: [server.allow] };
  const first = await fetchPage(`http://rebind.example:${server.port}/`, options);
  assert.equal(first.markdown, 'hello');
  await refused(`http://rebind.example:${server.port}/`, options, 'KW_ERR_FETCH_BLOCKED', /10\.0\.0\.7 is private/);
  // The address checked is the address connected to: no second lookup that could answer differently.
  assert.deepEqual(dns.calls, ['rebind.example', 'rebind.example']);
  assert.equal(server.connections(), 1);
});

test('a gzip bomb is cut off by the limit on decoded bytes, whatever Content-Length says', async (t) => {
  const bomb = zlib.gzipSync(Buffer.alloc(8 * 1024 * 1024, 'a'));
  assert.ok(bomb.length < 64 * 1024);
  const server = await serveHttp(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain', 'content-encoding': 'gzip', 'content-length': bomb.length });
    res.end(bomb);
  });
  await refused(`${server.origin}/bomb`, { testOnlyAllow: [server.allow], maxBytes: 256 * 1024 }, 'KW_ERR_FETCH_LIMIT',
    /larger than 262144 bytes \(after decompression\)/);
});

test('an endless body is cut off by the size limit, and a slow one by the time limit', async (t) => {
  const closed: Array<Promise<unknown>> = [];
  const chunk = Buffer.alloc(64 * 1024, 'x');
  const server = await serveHttp(t, (req, res) => {
    closed.push(once(res, 'close'));
    res.writeHead(200, { 'content-type': 'text/plain' });
    if (req.url === '/endless') {
      const pump = (): void => {
        while (!res.destroyed && res.write(chunk));
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    } else if (req.url === '/slow') {
      // A trickle that never ends: the body limit is never reached, only the time limit.
      res.write('a');
      const timer = setInterval(() => res.write('a'), 20);
      res.on('close', () => clearInterval(timer));
    }
    // '/silent' sends headers and then nothing at all.
  });
  const options = { testOnlyAllow: [server.allow] };
  await refused(`${server.origin}/endless`, { ...options, maxBytes: 300_000 }, 'KW_ERR_FETCH_LIMIT', /larger than 300000 bytes/);
  await refused(`${server.origin}/slow`, { ...options, timeoutMs: 300 }, 'KW_ERR_FETCH_LIMIT', /took longer than 300 ms/);
  await refused(`${server.origin}/silent`, { ...options, timeoutMs: 200 }, 'KW_ERR_FETCH_LIMIT', /took longer than 200 ms/);
  // Each cut-off closed the connection: the server is not left writing.
  await Promise.all(closed);
  assert.equal(closed.length, 3);
});

test('relative links and images become absolute against the final URL and <base href>; scripts and styles are dropped', async (t) => {
  const server = await serveHttp(t, (req, res) => {
    if (req.url === '/start') {
      res.writeHead(302, { location: '/docs/guide/page.html' });
      res.end();
    } else if (req.url === '/docs/guide/page.html') {
      page(res, `<!doctype html><html><head><title>Guide</title><style>body{color:red}</style><script>steal()</script></head><body>
        <article><h1>Guide</h1>
        <p>See <a href="other.html">the next page</a>, <a href="../index.html">the index</a>, <a href="/root">the root</a>,
        <a href="?q=1#top">a query</a> and <a href="https://example.org/abs">elsewhere</a>. ${'Words to make an article of it. '.repeat(30)}</p>
        <p><img src="img/figure.png" alt="Figure"> <img src="//cdn.example.net/logo.svg" alt="Logo"></p>
        <p>${'More words, with commas, so that Readability keeps this. '.repeat(15)}</p>
        <script>alert("in body")</script></article></body></html>`);
    } else if (req.url === '/based') {
      page(res, '<html><head><base href="/assets/v2/"></head><body><p>A <a href="file.txt">file</a> and <img src="pic.jpg" alt="pic"></p></body></html>');
    } else if (req.url === '/data.json') {
      page(res, '{"a": "```"}', 'application/json');
    } else {
      page(res, '# Notes\n\n[rel](x.md)\n', 'text/markdown');
    }
  });
  const o = server.origin;
  const options = { testOnlyAllow: [server.allow] };
  const guide = await fetchPage(`${o}/start`, options);
  assert.equal(guide.url, `${o}/docs/guide/page.html`);
  assert.equal(guide.status, 200);
  assert.equal(guide.contentType, 'text/html');
  assert.equal(guide.title, 'Guide');
  for (const link of [
    `[the next page](${o}/docs/guide/other.html)`, `[the index](${o}/docs/index.html)`, `[the root](${o}/root)`,
    `[a query](${o}/docs/guide/page.html?q=1#top)`, '[elsewhere](https://example.org/abs)',
    `![Figure](${o}/docs/guide/img/figure.png)`, '![Logo](http://cdn.example.net/logo.svg)',
  ]) assert.ok(guide.markdown.includes(link), `${link} in:\n${guide.markdown}`);
  assert.ok(!/steal|alert|color:red/.test(guide.markdown), guide.markdown);
  assert.deepEqual(guide.redirects, [`${o}/start`]);
  assert.equal(guide.bytes > 0, true);

  const based = await fetchPage(`${o}/based`, options);
  assert.ok(based.markdown.includes(`[file](${o}/assets/v2/file.txt)`), based.markdown);
  assert.ok(based.markdown.includes(`![pic](${o}/assets/v2/pic.jpg)`), based.markdown);

  const json = await fetchPage(`${o}/data.json`, options);
  assert.equal(json.markdown, '````json\n{"a": "```"}\n````');
  const md = await fetchPage(`${o}/notes.md`, options);
  assert.equal(md.markdown, '# Notes\n\n[rel](x.md)\n');
  assert.equal(md.contentType, 'text/markdown');
});

test('binary content types are refused; HTTP errors and refused connections fail naming the URL', async (t) => {
  const server = await serveHttp(t, (req, res) => {
    if (req.url === '/image.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
    } else if (req.url === '/blob') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(Buffer.alloc(10));
    } else {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<h1>Not here</h1>');
    }
  });
  const options = { testOnlyAllow: [server.allow] };
  await refused(`${server.origin}/image.png`, options, 'KW_ERR_FETCH_BLOCKED', /content of type image\/png; only HTML, plain text, Markdown and JSON/);
  await refused(`${server.origin}/blob`, options, 'KW_ERR_FETCH_BLOCKED', /application\/octet-stream/);
  await refused(`${server.origin}/missing`, options, 'KW_ERR_FETCH_FAILED', new RegExp(`${server.origin}/missing answered HTTP 404 Not Found`));
  // A port nothing listens on: allowed, but the connection is refused.
  const gone = http.createServer().listen(0, '127.0.0.1');
  await once(gone, 'listening');
  const { port } = gone.address() as AddressInfo;
  gone.close();
  await once(gone, 'close');
  await refused(`http://127.0.0.1:${port}/`, { testOnlyAllow: [`127.0.0.1:${port}`] }, 'KW_ERR_FETCH_FAILED', /cannot be fetched: ECONNREFUSED/);
});

test("the caller's signal stops a fetch with the signal's reason", async (t) => {
  let answered!: () => void;
  const asked = new Promise<void>((resolve) => { answered = resolve; });
  const server = await serveHttp(t, (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.write('partial');
    answered();
  });
  const controller = new AbortController();
  const pending = fetchPage(server.origin, { testOnlyAllow: [server.allow] }, controller.signal);
  await asked;
  const reason = new KowalskiError('KW_ERR_STEP_CANCELLED', 'cancelled by the test');
  controller.abort(reason);
  await assert.rejects(pending, (err) => err === reason);
});

test('the web_fetch tool: the page headed by its final URL and title, cut at max_chars with a note, meta for the trace', async (t) => {
  const body = `<html><head><title>Report</title></head><body><p>${'Lorem ipsum dolor sit amet. '.repeat(40)}<a href="next">next</a></p></body></html>`;
  const server = await serveHttp(t, (req, res) => {
    if (req.url === '/r') {
      res.writeHead(301, { location: '/report/' });
      res.end();
    } else {
      page(res, body);
    }
  });
  const tool = createWebFetchTool({ testOnlyAllow: [server.allow] });
  assert.equal(tool.spec.name, 'web_fetch');
  assert.deepEqual(tool.spec.inputSchema.required, ['url']);
  const signal = new AbortController().signal;
  const full = await tool.call({ url: `${server.origin}/r` }, { signal });
  assert.ok(full.content.startsWith(`URL: ${server.origin}/report/\nTitle: Report\n\n`), full.content.slice(0, 200));
  assert.ok(full.content.includes(`[next](${server.origin}/report/next)`), full.content);
  assert.ok(!full.content.includes('[truncated'));
  assert.deepEqual(full.meta, {
    url: `${server.origin}/report/`, status: 200, contentType: 'text/html', bytes: Buffer.byteLength(body), redirects: [`${server.origin}/r`], truncated: false,
  });
  const cut = await tool.call({ url: `${server.origin}/report/`, max_chars: 100 }, { signal });
  const [head, ...rest] = cut.content.split('\n\n');
  assert.equal(head, `URL: ${server.origin}/report/\nTitle: Report`);
  assert.equal(rest[0]!.length, 100);
  assert.match(rest[1] ?? '', /^\[truncated: showing the first 100 of \d+ characters; call again with a larger max_chars to read more\]$/);
  assert.equal(cut.meta?.truncated, true);
  // Through the tool, the policy is the same.
  await assert.rejects(createWebFetchTool().call({ url: 'http://169.254.169.254/' }, { signal }), { code: 'KW_ERR_FETCH_BLOCKED' });
});
