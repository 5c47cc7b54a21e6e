/**
 * The server over raw sockets, as an attacker sends: Origin must be the server's own
 * (scheme, host, port); whatever the HTTP parser, the router or the websocket handshake
 * refuses is answered in our `{error: {code, message}}` shape; a client that goes away
 * mid-upload is one log line, not an internal error.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net from 'node:net';
import { test } from 'node:test';
import { ERROR_CODES } from '../../core/index.js';
import { TestSocket, listen, testApi } from '../support/api.js';
import { AUTH, TEST_TOKEN, WS_PROTOCOLS } from '../support/token.js';

interface RawAnswer { status: number; headers: Record<string, string>; body: string; json: any }

/** Write `data` on a fresh connection and read one response (the server closes, or content-length says where it ends). */
function rawHttp(port: number, data: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(data));
    let got = Buffer.alloc(0);
    const timer = setTimeout(() => finish(new Error(`no complete answer in 10 s; got ${JSON.stringify(got.toString('latin1').slice(0, 200))}`)), 10_000);
    const parse = (): RawAnswer | undefined => {
      const text = got.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end === -1) return undefined;
      const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      const length = data.startsWith('HEAD ') ? 0 : Number(headers['content-length'] ?? NaN);
      const bodyBytes = got.subarray(Buffer.byteLength(text.slice(0, end + 4), 'latin1'));
      if (Number.isNaN(length) || bodyBytes.length < length) return undefined;
      const body = bodyBytes.subarray(0, length).toString('utf8');
      let json: unknown;
      try { json = JSON.parse(body); } catch { json = undefined; }
      return { status: Number(statusLine!.split(' ')[1]), headers, body, json };
    };
    const finish = (err?: Error): void => {
      clearTimeout(timer);
      socket.destroy();
      const answer = parse();
      if (answer !== undefined) resolve(answer);
      else reject(err ?? new Error(`the connection closed without a complete answer: ${JSON.stringify(got.toString('latin1').slice(0, 200))}`));
    };
    socket.on('data', (chunk: Buffer) => {
      got = Buffer.concat([got, chunk]);
      if (parse() !== undefined) finish();
    });
    socket.on('close', () => finish());
    socket.on('error', (e) => finish(e));
  });
}

/** Our shape, with a documented code, the status that code has, and JSON as the content type. */
function assertShape(r: RawAnswer, status: number, code: string, what: string): void {
  assert.equal(r.status, status, `${what}: ${r.body}`);
  assert.match(r.headers['content-type'] ?? '', /^application\/json/, what);
  assert.deepEqual(Object.keys(r.json ?? {}), ['error'], `${what}: ${r.body}`);
  assert.equal(r.json.error.code, code, `${what}: ${r.body}`);
  assert.ok(code in ERROR_CODES, `${code} is documented`);
  assert.equal(typeof r.json.error.message, 'string');
  assert.ok(r.json.error.message.length > 10, what);
}

/** A bounded wait (5 s) for what the server does a moment after the client sees it. */
async function until(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 250 && !condition(); i++) await new Promise((resolve) => setTimeout(resolve, 20));
}

function get(port: number, path: string, headers: Record<string, string>): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, headers: { connection: 'close', ...AUTH, ...headers } }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, json: JSON.parse(body) }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('Origin must be the server itself — http, one of its names, its port — on HTTP routes and on the websocket', async (t) => {
  const api = await testApi(t, { port: 0 });
  const { port, wsUrl } = await listen(api);
  const refused = [
    `https://127.0.0.1:${port}`, // the server speaks plain HTTP: an https page is another origin
    `http://127.0.0.1:${port + 1}`,
    'http://127.0.0.1', // port 80
    `http://evil.example:${port}`,
    `http://127.0.0.1.evil.example:${port}`,
    `http://127.0.0.1:${port}/`, // an Origin is never a URL with a path
    `http://user@127.0.0.1:${port}`,
    `ws://127.0.0.1:${port}`,
    'null',
  ];
  const accepted = [`http://127.0.0.1:${port}`, `http://LOCALHOST:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`, `http://[0:0:0:0:0:0:0:1]:${port}`];
  for (const origin of refused) {
    const r = await get(port, '/api/runs', { origin });
    assert.deepEqual([r.status, r.json.error?.code], [403, 'KW_ERR_FORBIDDEN_ORIGIN'], `HTTP, Origin ${JSON.stringify(origin)}`);
    await assert.rejects(TestSocket.open(t, wsUrl, ['kowalski'], { origin }), (err: any) => err.status === 403 && /KW_ERR_FORBIDDEN_ORIGIN/.test(err.body), `websocket, Origin ${JSON.stringify(origin)}`);
  }
  assert.equal((await get(port, '/api/runs', { origin: '' })).status, 403, 'an empty Origin');
  for (const origin of accepted) {
    const r = await get(port, '/api/runs', { origin });
    assert.equal(r.status, 200, `HTTP, Origin ${origin}: ${JSON.stringify(r.json)}`);
    const ws = await TestSocket.open(t, wsUrl, WS_PROTOCOLS, { origin });
    assert.equal((await ws.next((f) => f.type === 'hello')).type, 'hello', `websocket, Origin ${origin}`);
    ws.ws.close();
  }
  assert.equal(api.engine.listRuns().length, 0);
});

test('what the HTTP parser refuses is answered in our shape with connection: close — 431, 414, a malformed request line', async (t) => {
  const api = await testApi(t, { port: 0 });
  const { port } = await listen(api);
  const host = `Host: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n`;
  const headers = await rawHttp(port, `GET /api/health HTTP/1.1\r\n${host}X-Big: ${'h'.repeat(20_000)}\r\n\r\n`);
  assertShape(headers, 431, 'KW_ERR_HEADERS_TOO_LARGE', 'a 20 kB header');
  assert.equal(headers.headers.connection, 'close');
  const url = await rawHttp(port, `GET /api/${'u'.repeat(20_000)} HTTP/1.1\r\n${host}\r\n`);
  assertShape(url, 414, 'KW_ERR_URI_TOO_LONG', 'a 20 kB URL');
  assert.equal(url.headers.connection, 'close');
  for (const [what, request] of [
    ['no space after the method', `GET/ HTTP/1.1\r\n${host}\r\n`],
    ['an unknown method', `BREW /api/health HTTP/1.1\r\n${host}\r\n`],
    ['a bad version', `GET /api/health HTTP/9\r\n${host}\r\n`],
    ['a control character in a header name', `GET /api/health HTTP/1.1\r\n${host}X-A\u0001: b\r\n\r\n`],
    ['a Content-Length that is not a number', `POST /api/hordes/quick/runs HTTP/1.1\r\n${host}content-type: application/json\r\ncontent-length: abc\r\n\r\n{}`],
    ['two Content-Lengths', `POST /api/hordes/quick/runs HTTP/1.1\r\n${host}content-type: application/json\r\ncontent-length: 2\r\ncontent-length: 3\r\n\r\n{}`],
    ['a bad chunk size', `POST /api/hordes/quick/runs HTTP/1.1\r\n${host}content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`],
  ] as const) {
    const r = await rawHttp(port, request);
    assertShape(r, 400, 'KW_ERR_MALFORMED_REQUEST', what);
    assert.equal(r.headers.connection, 'close', what);
  }
  assert.equal(api.engine.listRuns().length, 0, 'nothing started');
  assert.equal((await get(port, '/api/health', { host: `127.0.0.1:${port}` })).status, 200, 'the server still answers');
});

test('the router, the websocket handshake and CONNECT answer in our shape too', async (t) => {
  const api = await testApi(t, { port: 0 });
  const { port } = await listen(api);
  const host = `Host: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\n`;
  const upgrade = 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';
  const cases: [string, string, number, string][] = [
    ['a % without two hex digits', `GET /api/%zz HTTP/1.1\r\n${host}connection: close\r\n\r\n`, 400, 'KW_ERR_BAD_URL'],
    ['a % escape that is not UTF-8', `GET /api/runs/%E0%A4%A HTTP/1.1\r\n${host}connection: close\r\n\r\n`, 400, 'KW_ERR_BAD_URL'],
    ['a path part longer than any id', `GET /api/runs/${'r'.repeat(300)} HTTP/1.1\r\n${host}connection: close\r\n\r\n`, 414, 'KW_ERR_URI_TOO_LONG'],
    ['no Host at all (HTTP/1.1)', 'GET /api/health HTTP/1.1\r\nconnection: close\r\n\r\n', 403, 'KW_ERR_FORBIDDEN_HOST'],
    ['no Host at all (HTTP/1.0)', 'GET /api/health HTTP/1.0\r\n\r\n', 403, 'KW_ERR_FORBIDDEN_HOST'],
    ['CONNECT', `CONNECT 127.0.0.1:${port} HTTP/1.1\r\n${host}\r\n`, 404, 'KW_ERR_NOT_FOUND'],
    ['OPTIONS *', `OPTIONS * HTTP/1.1\r\n${host}connection: close\r\n\r\n`, 404, 'KW_ERR_NOT_FOUND'],
    ['a websocket upgrade of another path', `GET /api/health HTTP/1.1\r\n${host}${upgrade}\r\n`, 404, 'KW_ERR_NOT_FOUND'],
    ['a websocket upgrade without a key', `GET /api/ws HTTP/1.1\r\n${host}Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\n\r\n`, 400, 'KW_ERR_BAD_REQUEST'],
    ['an upgrade to another protocol', `GET /api/ws HTTP/1.1\r\n${host}Connection: Upgrade\r\nUpgrade: h2c\r\n\r\n`, 400, 'KW_ERR_BAD_REQUEST'],
    ['a websocket of another version', `GET /api/ws HTTP/1.1\r\n${host}${upgrade.replace('13', '12')}\r\n`, 400, 'KW_ERR_BAD_REQUEST'],
    ['a malformed subprotocol list', `GET /api/ws HTTP/1.1\r\n${host}${upgrade}Sec-WebSocket-Protocol: kowalski, kowalski\r\n\r\n`, 400, 'KW_ERR_BAD_REQUEST'],
    ['the websocket path without an upgrade', `GET /api/ws HTTP/1.1\r\n${host}connection: close\r\n\r\n`, 404, 'KW_ERR_NOT_FOUND'],
  ];
  for (const [what, request, status, code] of cases) assertShape(await rawHttp(port, request), status, code, what);

  // Every method Node's parser knows, on a route, an unknown path and a malformed id: our shape (or a success), never a default.
  for (const method of http.METHODS.filter((m) => m !== 'CONNECT')) {
    for (const path of ['/api/health', '/nowhere', '/api/runs/x']) {
      const r = await rawHttp(port, `${method} ${path} HTTP/1.1\r\n${host}content-length: 0\r\nconnection: close\r\n\r\n`);
      assert.match(r.headers['content-type'] ?? '', /^application\/json/, `${method} ${path}`);
      if (method === 'HEAD') continue; // no body by definition
      assert.ok(r.status === 200 || (r.json?.error?.code in ERROR_CODES && Object.keys(r.json).length === 1), `${method} ${path}: ${r.status} ${r.body}`);
    }
  }
});

test('a client that cuts an upload mid-body is one log line naming the route, not an internal error', async (t) => {
  const lines: string[] = [];
  const internal: unknown[] = [];
  let logged!: () => void;
  const loggedOnce = new Promise<void>((resolve) => (logged = resolve));
  const api = await testApi(t, { port: 0, onInternalError: (err) => internal.push(err), log: (line) => { lines.push(line); logged(); } });
  const { port } = await listen(api);
  const socket = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => socket.once('connect', resolve));
  socket.write(`POST /api/bundles HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nContent-Type: application/zip\r\nContent-Length: ${4 * 1024 * 1024}\r\n\r\n`);
  socket.write(Buffer.alloc(256 * 1024, 7));
  await new Promise<void>((resolve) => socket.write('', () => resolve()));
  socket.destroy();
  await loggedOnce;
  assert.deepEqual(lines, ['POST /api/bundles: the client went away (aborted)']);
  // The server goes on; nothing was reported as a bug.
  assert.equal((await get(port, '/api/health', {})).status, 200);
  assert.deepEqual(internal, []);
  assert.deepEqual(lines.length, 1);
});

test('uploads are taken two at a time by default (here one): one more is 503 KW_ERR_SERVER_BUSY before its body is read; the rest of the API answers', async (t) => {
  let gone!: () => void;
  const wentAway = new Promise<void>((resolve) => (gone = resolve));
  const api = await testApi(t, { port: 0, maxUploads: 1, log: () => gone() });
  const { base, port } = await listen(api);
  const bundle = Buffer.from(await (await fetch(`${base}/api/hordes/quick/bundle`, { headers: AUTH })).arrayBuffer());
  const upload = (): Promise<Response> => fetch(`${base}/api/bundles`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/zip' }, body: bundle });

  // An upload that has sent half its body and waits holds the only place.
  const stalled = net.connect(port, '127.0.0.1');
  await new Promise((resolve) => stalled.once('connect', resolve));
  stalled.write(`POST /api/bundles HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nContent-Type: application/zip\r\nContent-Length: ${bundle.length}\r\n\r\n`);
  await new Promise<void>((resolve) => stalled.write(bundle.subarray(0, bundle.length >> 1), () => resolve()));
  await until(() => api.uploads.active === 1);
  assert.equal(api.uploads.active, 1);

  const busy = await upload();
  assert.equal(busy.status, 503);
  assert.equal(((await busy.json()) as any).error.code, 'KW_ERR_SERVER_BUSY');
  assert.equal((await get(port, '/api/health', {})).status, 200, 'other routes are not limited');
  const run = await fetch(`${base}/api/hordes/quick/runs`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: '{}' });
  assert.equal(run.status, 201, 'nor are JSON bodies');

  // Once it is gone, its place is free.
  stalled.destroy();
  await wentAway;
  await until(() => api.uploads.active === 0);
  assert.equal(api.uploads.active, 0);
  const taken = await upload();
  assert.equal(taken.status, 201, await taken.text());
  await until(() => api.uploads.active === 0);
  assert.equal(api.uploads.active, 0, 'the place is given back after the answer');
});

test('a request that stalls — in its headers or mid-body — is answered 408 KW_ERR_REQUEST_TIMEOUT and its upload place freed', async (t) => {
  const api = await testApi(t, { port: 0, requestTimeoutMs: 1000, log: () => undefined });
  const { port } = await listen(api);
  const started = Date.now();
  const headers = await rawHttp(port, `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nX-Slow: `);
  assertShape(headers, 408, 'KW_ERR_REQUEST_TIMEOUT', 'headers that never end');
  assert.equal(headers.headers.connection, 'close');
  const body = await rawHttp(port, `POST /api/bundles HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${TEST_TOKEN}\r\nContent-Type: application/zip\r\nContent-Length: 1000\r\n\r\nPK`);
  assertShape(body, 408, 'KW_ERR_REQUEST_TIMEOUT', 'a body that stops');
  t.diagnostic(`both answered in ${Date.now() - started} ms (limit 1 s, checked every 250 ms)`);
  await until(() => api.uploads.active === 0);
  assert.equal(api.uploads.active, 0);
});
