/** A real engine behind a real API for tests: inject() with the right Host, or a listening socket and websocket clients. */
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { TestContext } from 'node:test';
import WebSocket from 'ws';
import type { ClientOptions, RawData } from 'ws';
import { buildApi } from '../../api/index.js';
import type { Api, ApiOptions } from '../../api/index.js';
import type { Engine } from '../../engine/index.js';
import { testEngine, writeHorde } from './engine.js';
import { tempDir } from '../../testkit/tmp.js';
import { AUTH, TEST_TOKEN, WS_PROTOCOLS } from './token.js';
export { AUTH, TEST_TOKEN, WS_PROTOCOLS } from './token.js';
import { cleanups } from '../../testkit/cleanup.js';

export const API_PORT = 8765;

/** What a test may set: everything the server takes, the token included (default TEST_TOKEN). */
export type TestApiOptions = Omit<ApiOptions, 'token'> & { token?: string };

export interface TestApi extends Api {
  engine: Engine;
  home: string;
  /** inject() with `Host: 127.0.0.1:8765` and the token unless headers say otherwise (`authorization: ''` sends none). */
  call(method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; json: any; body: string; headers: Record<string, unknown> }>;
}

/**
 * Hordes every API test can run: `gate` (noop → verify that parks for approval → noop),
 * `quick` (two noop steps), `form` (an input form), `broken` (an invalid folder).
 */
export function writeTestHordes(home: string, proofFile: string): void {
  const hordes = path.join(home, 'hordes');
  writeHorde(path.join(hordes, 'gate'), 'id = "gate"\ndescription = "parks at check"\npipeline = ["first", "check", "last"]', {
    first: 'kind = "noop"',
    check: `kind = "verify"\nverify_command = ${JSON.stringify(`echo checked >> ${proofFile}`)}`,
    last: 'kind = "noop"',
  });
  writeHorde(path.join(hordes, 'quick'), 'id = "quick"\npipeline = ["a", "b"]', { a: 'kind = "noop"', b: 'kind = "noop"' });
  writeHorde(path.join(hordes, 'form'), 'id = "form"\npipeline = ["intake", "done"]', {
    intake: 'kind = "noop"\n\n[[inputs]]\nid = "who"\nrequired = true\n\n[[inputs]]\nid = "mood"\ntype = "choice"\noptions = ["calm", "busy"]\ndefault = "calm"\n\n[[inputs]]\nid = "site"\ntype = "url"',
    done: 'kind = "noop"',
  });
  writeHorde(path.join(hordes, 'broken'), 'id = "broken"\npipeline = ["a", "missing"]', { a: 'kind = "noop"' });
}

export async function testApi(t: TestContext, options: TestApiOptions = {}): Promise<TestApi & { proof: string }> {
  const home = tempDir(t, 'kw-api-');
  const proof = path.join(home, 'proof.txt');
  writeTestHordes(home, proof);
  const engine = await testEngine(t, {}, home);
  const api = await buildApi(engine, { port: API_PORT, onInternalError: (err) => t.diagnostic(`internal: ${String(err)}`), token: TEST_TOKEN, ...options });
  cleanups(t)(() => api.app.close());
  const port = options.port ?? API_PORT;
  return {
    ...api, engine, home, proof,
    async call(method, url, body, headers = {}) {
      const all: Record<string, string> = { host: `127.0.0.1:${port}`, ...AUTH, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers };
      if (all.authorization === '') delete all.authorization;
      const res = await api.app.inject({
        method, url, headers: all,
        ...(body === undefined ? {} : { payload: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      let json: unknown;
      try {
        json = JSON.parse(res.body);
      } catch {
        json = undefined;
      }
      return { status: res.statusCode, json, body: res.body, headers: res.headers };
    },
  };
}

/** Listen on 127.0.0.1 (or `host`) on a free port; the returned base has no trailing slash. */
export async function listen(api: Api, host = '127.0.0.1'): Promise<{ base: string; port: number; wsUrl: string }> {
  await api.app.listen({ host, port: 0 });
  const port = (api.app.server.address() as AddressInfo).port;
  return { base: `http://127.0.0.1:${port}`, port, wsUrl: `ws://127.0.0.1:${port}/api/ws` };
}

/** A websocket client that queues every frame, for bounded waits on what the server sent. */
export class TestSocket {
  readonly frames: any[] = [];
  private waiters: { match: (f: any) => boolean; resolve: (f: any) => void }[] = [];
  closed: Promise<{ code: number; reason: string }>;

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data: RawData) => {
      const frame = JSON.parse(String(data));
      this.frames.push(frame);
      this.waiters = this.waiters.filter((w) => {
        if (!w.match(frame)) return true;
        w.resolve(frame);
        return false;
      });
    });
    this.closed = new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })));
  }

  static open(t: TestContext, url: string, protocols: string[] = WS_PROTOCOLS, options: ClientOptions = {}): Promise<TestSocket> {
    const ws = new WebSocket(url, protocols, options);
    const socket = new TestSocket(ws);
    cleanups(t)(() => ws.terminate());
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(socket));
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => reject(Object.assign(new Error(`refused ${res.statusCode}: ${body}`), { status: res.statusCode, body })));
      });
      ws.once('error', reject);
    });
  }

  send(frame: unknown): void {
    this.ws.send(JSON.stringify(frame));
  }

  /** The first frame (already received or still to come) after index `from` that matches. */
  next(match: (f: any) => boolean, from = 0): Promise<any> {
    const seen = this.frames.slice(from).find(match);
    if (seen !== undefined) return Promise.resolve(seen);
    return new Promise((resolve) => this.waiters.push({ match, resolve }));
  }
}
