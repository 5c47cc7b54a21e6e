/**
 * The HTTP API fuzzed: `buildApi` over a real engine on a temp data folder, requests made
 * with inject() (every route, every method, parameters and queries of wrong shapes, bodies
 * of malformed JSON, wrong types, deep nesting, huge strings, odd content types, Host,
 * Origin and Authorization headers of every sort), and every `--raw-every`th one as raw
 * bytes on a socket of the real listening server (bad request lines, huge headers, broken
 * chunking). Checks: every answer comes within the runner's timeout, no 5xx but the
 * documented ones (busy 503, webhook secret 503, model and consolidation 502), every
 * error carries a stable code, and the server keeps answering `GET /api/health`.
 */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { buildApi } from '../../api/index.js';
import { isErrorCode } from '../../core/index.js';
import { createEngine, DEFAULT_CONFIG } from '../../engine/index.js';
import { numberOption } from '../args.js';
import type { Rng } from './rng.js';
import { mutateText, NASTY, randomString } from './rng.js';
import type { FuzzTarget } from './target.js';
import { BENCH_AUTH, BENCH_TOKEN } from '../token.js';

const RAW_EVERY = numberOption('raw-every', 50);

const ROUTES = [
  'GET /api/health', 'GET /api/hordes', 'GET /api/hordes/:horde', 'POST /api/hordes/:horde/validate', 'POST /api/hordes/:horde/runs', 'GET /api/hordes/:horde/bundle',
  'GET /api/runs', 'GET /api/runs/:run', 'GET /api/runs/:run/events', 'GET /api/runs/:run/artifacts/:path', 'POST /api/runs/:run/approve', 'POST /api/runs/:run/deny',
  'POST /api/runs/:run/cancel', 'POST /api/runs/:run/resume', 'GET /api/traces', 'GET /api/traces/:id', 'GET /api/traces/:id/children',
  'POST /api/chat/sessions', 'GET /api/chat/sessions', 'GET /api/chat/sessions/:id', 'POST /api/chat/sessions/:id/messages', 'POST /api/chat/sessions/:id/continue',
  'GET /api/triggers', 'POST /api/triggers/:horde/:name/enable', 'POST /api/triggers/:horde/:name/disable', 'POST /hooks/:horde/:name',
  'POST /api/bundles', 'POST /api/bundles/:id/install', 'DELETE /api/bundles/:id', 'GET /api/agents', 'GET /api/agents/:name', 'POST /api/agents/validate',
  'PUT /api/agents/:name', 'DELETE /api/agents/:name', 'GET /api/vault/notes', 'GET /api/vault/note', 'GET /api/writes', 'GET /api/writes/:id', 'POST /api/writes/:id/revert',
  'GET /api/setup', 'PUT /api/setup', 'GET /api/vault/search', 'GET /api/vault/status', 'POST /api/rookery/drafts', 'GET /api/rookery/drafts', 'GET /api/rookery/drafts/:id',
  'PUT /api/rookery/drafts/:id', 'POST /api/rookery/drafts/:id/birth', 'GET /api/rookery/kinds', 'GET /', 'GET /index.html', 'GET /assets/x.js',
];
const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS'] as const;
const QUERY_KEYS = ['limit', 'cursor', 'status', 'horde', 'after', 'q', 'path', 'under', 'semantic', 'before', 'run', 'session'];
const BODY_KEYS = ['input', 'provenance', 'step', 'reason', 'agent', 'title', 'text', 'extraIterations', 'id', 'replace', 'name', 'by', 'draft', 'overwrite', 'with_chat',
  'since', 'models', 'vault', 'default_model', 'ollama', 'semantic', 'enabled', 'model'];
/** 5xx answers the API documents (docs/api.md), by code. */
const DOCUMENTED_5XX = (code: string): boolean => ['KW_ERR_SERVER_BUSY', 'KW_ERR_WEBHOOK_SECRET', 'KW_ERR_MEMORY_CONSOLIDATE'].includes(code) || code.startsWith('KW_ERR_MODEL_');

function value(rng: Rng, depth = 0): unknown {
  switch (rng.int(depth > 3 ? 5 : 8)) {
    case 0: return randomString(rng);
    case 1: return rng.pick([0, -1, 1, 1.5, 2 ** 53, -(2 ** 63), 1e308, Number.MAX_SAFE_INTEGER]);
    case 2: return rng.pick([true, false, null]);
    case 3: return rng.pick(NASTY);
    case 4: return rng.pick(['fz', 'gate', 'builder', 'memory/x.md', 'x.md', '../x.md']);
    case 5: return Array.from({ length: rng.size(5) }, () => value(rng, depth + 1));
    default: return Object.fromEntries(Array.from({ length: rng.size(5) }, () => [rng.chance(0.8) ? rng.pick(BODY_KEYS) : randomString(rng, 10), value(rng, depth + 1)]));
  }
}

function body(rng: Rng): string | Buffer | undefined {
  switch (rng.int(9)) {
    case 0: return undefined;
    case 1: return '';
    case 2: return mutateText(JSON.stringify(value(rng)), rng, ['{', '}', '[', ']', '"', ',', ':', '\\', '\\u', 'null', '1e999', '\u0000']);
    case 3: return rng.chance(0.5) ? '['.repeat(rng.size(100_000)) : `${'{"a":'.repeat(rng.size(20_000))}1${'}'.repeat(rng.size(20_000))}`;
    case 4: return JSON.stringify({ text: 'x'.repeat(rng.size(2 * 1024 * 1024)) });
    case 5: return Buffer.from(Array.from({ length: rng.size(4096) }, () => rng.int(256)));
    default: return JSON.stringify(value(rng));
  }
}

/** encodeURIComponent of any string (a lone surrogate cannot be sent: it becomes U+FFFD). */
const enc = (s: string): string => encodeURIComponent(s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD'));

function fill(route: string, rng: Rng, runId: string): string {
  const param = (name: string): string => {
    if (rng.chance(0.5)) return ({ horde: rng.pick(['fz', 'gate', 'nope']), run: runId, name: rng.pick(['in', 'builder', 'x']), path: 'output/x.txt' } as Record<string, string>)[name] ?? randomString(rng, 30);
    const s = rng.chance(0.1) ? rng.pick(['..', '%2e%2e', '..%2f..%2fetc', '%00', '%', '%zz', 'a'.repeat(rng.size(20_000))]) : randomString(rng, 40);
    return rng.chance(0.7) ? enc(s) : s.replace(/[\s#?]/g, '');
  };
  let url = route.replace(/:([a-z]+)/g, (_m, name: string) => param(name));
  if (rng.chance(0.4)) {
    const pairs = Array.from({ length: rng.size(6) }, () => `${rng.chance(0.9) ? rng.pick(QUERY_KEYS) : randomString(rng, 8)}=${enc(String(value(rng)))}`);
    url += `?${pairs.join('&')}${rng.chance(0.1) ? '&%%&=&&==' : ''}`;
  }
  return url.startsWith('/') ? url : `/${url}`;
}

function headers(rng: Rng, host: string): Record<string, string> {
  const h: Record<string, string> = { host: rng.chance(0.95) ? host : rng.pick(['evil.example', '', '127.0.0.1', '[::1]:1', `${host}.evil`, 'localhost:1']) };
  if (rng.chance(0.6)) h['content-type'] = 'application/json';
  else if (rng.chance(0.5)) h['content-type'] = rng.pick(['application/json; charset=utf-16', 'text/plain', 'application/zip', 'multipart/form-data; boundary=x', 'garbage', '', 'application/x-www-form-urlencoded']);
  if (rng.chance(0.1)) h.origin = rng.pick(['http://evil.example', 'null', `http://${host}`, `https://${host}`, randomString(rng)]);
  // Mostly the right token (so the routes behind it are reached), sometimes none or a wrong one.
  if (rng.chance(0.9)) h.authorization = BENCH_AUTH.authorization;
  else if (rng.chance(0.5)) h.authorization = rng.pick(['Bearer ', 'Bearer x', 'Basic AAAA', randomString(rng)]);
  if (rng.chance(0.05)) h['x-request-id'] = randomString(rng, 300);
  if (rng.chance(0.03)) h['x-huge'] = 'h'.repeat(rng.size(256 * 1024));
  if (rng.chance(0.03)) h['content-encoding'] = rng.pick(['gzip', 'br', 'deflate', 'x']);
  for (const k of Object.keys(h)) h[k] = h[k]!.replace(/[^\t\x20-\x7e\x80-\xff]/g, '');
  return h;
}

/** A malformed request as raw bytes on a socket; resolves with the status line (or how the connection ended). */
function raw(port: number, rng: Rng): Promise<string> {
  const requests = [
    `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Big: ${'a'.repeat(rng.size(200_000))}\r\n\r\n`,
    `POST /api/hordes/fz/runs HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\nzz\r\n{}\r\n0\r\n\r\n`,
    `POST /api/hordes/fz/runs HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 5\r\nContent-Length: 7\r\n\r\n{}`,
    `GET ${'/a'.repeat(rng.size(40_000))} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
    `${randomString(rng, 30)} ${randomString(rng, 30)} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`,
    `GET /api/health HTTP/9.9\r\n\r\n`,
    `GET /api/health HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${Array.from({ length: rng.size(3000) }, (_, k) => `X-${k}: 1\r\n`).join('')}\r\n`,
    `POST /hooks/fz/in HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Length: 100\r\n\r\n{"cut": `,
    Buffer.from(Array.from({ length: rng.size(2048) }, () => rng.int(256))).toString('latin1'),
  ];
  const text = rng.pick(requests);
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    let got = '';
    socket.setTimeout(5000, () => socket.destroy());
    socket.on('data', (d) => {
      got += d.toString('latin1');
      if (got.includes('\r\n')) socket.destroy();
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve(got === '' ? 'closed' : got.slice(0, got.indexOf('\r\n'))));
    socket.end(Buffer.from(text, 'latin1'));
  });
}

export async function apiTarget(dataDir: string): Promise<FuzzTarget> {
  const horde = path.join(dataDir, 'hordes', 'fz');
  fs.mkdirSync(path.join(horde, 'agents'), { recursive: true });
  fs.writeFileSync(path.join(horde, 'horde.md'), '---\nid = "fz"\npipeline = ["check"]\n[[triggers]]\nname = "in"\nkind = "webhook"\noverlap = "parallel"\n---\n');
  fs.writeFileSync(path.join(horde, 'agents', 'check.md'), '---\nname = "check"\nkind = "verify"\nverify_command = "true"\n---\n');
  const internal: string[] = [];
  const engine = await createEngine({ dataDir, config: DEFAULT_CONFIG });
  await engine.recover();
  const { app } = await buildApi(engine, { token: BENCH_TOKEN, port: 0, onInternalError: (err) => internal.push(err instanceof Error ? err.stack ?? err.message : String(err)), log: () => {} });
  await app.listen({ host: '127.0.0.1', port: 0 });
  await engine.triggers.start();
  const { port } = app.server.address() as AddressInfo;
  const host = `127.0.0.1:${port}`;
  const runId = (JSON.parse((await app.inject({ method: 'POST', url: '/api/hordes/fz/runs', headers: { host, ...BENCH_AUTH, 'content-type': 'application/json' }, payload: '{"input":{}}' })).body) as { runId: string }).runId;
  return {
    async one(i, rng) {
      if (RAW_EVERY > 0 && i % RAW_EVERY === 0) {
        const line = await raw(port, rng);
        const status = Number(/^HTTP\/1\.1 (\d+)/.exec(line)?.[1] ?? 0);
        if (status >= 500 && status !== 503) throw new Error(`raw request answered ${line}`);
        const health = await fetch(`http://${host}/api/health`, { headers: BENCH_AUTH, signal: AbortSignal.timeout(5000) });
        if (health.status !== 200) throw new Error(`after a raw request /api/health answered ${health.status}`);
        return `raw ${status === 0 ? line.slice(0, 12) : status}`;
      }
      const [m, route] = rng.pick(ROUTES).split(' ') as [string, string];
      const method = rng.chance(0.8) ? m : rng.pick(METHODS);
      const url = fill(route, rng, runId);
      const payload = method === 'GET' || method === 'HEAD' ? undefined : body(rng);
      const res = await app.inject({ method: method as (typeof METHODS)[number], url, headers: headers(rng, host), ...(payload === undefined ? {} : { payload }) });
      let code = '';
      if (res.statusCode >= 400 && method !== 'HEAD') {
        try {
          code = String((JSON.parse(res.body) as { error?: { code?: unknown } }).error?.code ?? '');
        } catch {
          throw new Error(`${method} ${url.slice(0, 200)}: ${res.statusCode} with a body that is not JSON: ${res.body.slice(0, 200)}`);
        }
        if (!isErrorCode(code)) throw new Error(`${method} ${url.slice(0, 200)}: ${res.statusCode} without a known code: ${res.body.slice(0, 300)}`);
      }
      if (res.statusCode >= 500 && !DOCUMENTED_5XX(code)) throw new Error(`${method} ${url.slice(0, 200)}: ${res.statusCode} ${res.body.slice(0, 500)}\n${internal.splice(0).join('\n')}`);
      if (internal.length > 0) throw new Error(`${method} ${url.slice(0, 200)}: an internal error was reported: ${internal.splice(0).join('\n')}`);
      return `${res.statusCode}${code === '' ? '' : ` ${code}`}`;
    },
    async close() {
      await app.close();
      await engine.close();
    },
  };
}
