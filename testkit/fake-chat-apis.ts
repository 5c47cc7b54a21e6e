/**
 * Fake chat-service APIs for the adapter tests: real HTTP servers on 127.0.0.1 that record
 * every request and answer as Slack's Web API (`auth.test`, `chat.postMessage`) and
 * Discord's (the edit of a deferred response) do, scripted per test (a refusal, an HTTP
 * error). Plus the signing both services do, so a test sends what they would send.
 * `defer` is given the server's close (a test's clean-ups, a soak's own list).
 */
import crypto from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedCall {
  method: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: any;
  /** When it arrived (Date.now()). */
  at: number;
}

export interface FakeChatApi {
  /** The base URL to configure as `api_url`. */
  url: string;
  calls: RecordedCall[];
  /** Calls whose path ends with `suffix` (e.g. "/chat.postMessage"). */
  callsTo(suffix: string): RecordedCall[];
  /** Answer the next calls to `suffix` with these (status, JSON) before the normal answer. */
  script(suffix: string, answers: Array<{ status: number; body: unknown }>): void;
}

type Normal = (call: RecordedCall) => { status: number; body: unknown };

/** Registers a clean-up (a test's `cleanups(t)`, or a driver's own list). */
export type Defer = (fn: () => unknown) => void;

async function fakeApi(defer: Defer, prefix: string, normal: Normal): Promise<FakeChatApi> {
  const calls: RecordedCall[] = [];
  const scripted = new Map<string, Array<{ status: number; body: unknown }>>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const call: RecordedCall = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: text === '' ? undefined : JSON.parse(text), at: Date.now() };
      calls.push(call);
      const suffix = [...scripted.keys()].find((s) => call.path.endsWith(s) && scripted.get(s)!.length > 0);
      const answer = suffix === undefined ? normal(call) : scripted.get(suffix)!.shift()!;
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(answer.body === undefined ? '' : JSON.stringify(answer.body));
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  defer(async () => {
    server.closeAllConnections();
    server.close();
    await once(server, 'close');
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${origin}${prefix}`,
    calls,
    callsTo: (suffix) => calls.filter((c) => c.path.endsWith(suffix)),
    script: (suffix, answers) => scripted.set(suffix, [...(scripted.get(suffix) ?? []), ...answers]),
  };
}

export const SLACK_BOT_USER = 'UKOWALSKI';

/** Slack's Web API: `auth.test` names SLACK_BOT_USER; `chat.postMessage` answers ok with a ts. Calls need `Authorization: Bearer <token>`. */
export function fakeSlackApi(defer: Defer, token: string): Promise<FakeChatApi> {
  let ts = 0;
  return fakeApi(defer, '/api', (call) => {
    if (call.headers.authorization !== `Bearer ${token}`) return { status: 200, body: { ok: false, error: 'invalid_auth' } };
    if (call.path === '/api/auth.test') return { status: 200, body: { ok: true, user_id: SLACK_BOT_USER, bot_id: 'BKOWALSKI' } };
    if (call.path === '/api/chat.postMessage') return { status: 200, body: { ok: true, channel: call.body?.channel, ts: `1800000000.${String(++ts).padStart(6, '0')}` } };
    return { status: 200, body: { ok: false, error: 'unknown_method' } };
  });
}

/** Discord's API: the PATCH of `/webhooks/<app>/<token>/messages/@original` answers the message. */
export function fakeDiscordApi(defer: Defer): Promise<FakeChatApi> {
  return fakeApi(defer, '/api/v10', (call) => {
    if (call.method === 'PATCH' && /^\/api\/v10\/webhooks\/\d+\/[^/]+\/messages\/@original$/.test(call.path)) {
      return { status: 200, body: { id: '42', content: call.body?.content } };
    }
    return { status: 404, body: { message: 'Unknown Webhook', code: 10015 } };
  });
}

/** The headers Slack sends with a body, signed with `secret` at `nowSecs`. */
export function slackSigned(secret: string, body: string, nowSecs: number, extra: Record<string, string> = {}): Record<string, string> {
  const ts = String(nowSecs);
  const sig = crypto.createHmac('sha256', secret).update(`v0:${ts}:${body}`).digest('hex');
  return { 'content-type': 'application/json', 'x-slack-request-timestamp': ts, 'x-slack-signature': `v0=${sig}`, ...extra };
}

/** A Discord application's key pair: the public key as Discord shows it (hex), and signing as Discord does. */
export function discordKeys(): { publicHex: string; sign(body: string, nowSecs: number): Record<string, string> } {
  const pair = crypto.generateKeyPairSync('ed25519');
  const publicHex = pair.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex');
  return {
    publicHex,
    sign(body, nowSecs) {
      const ts = String(nowSecs);
      const sig = crypto.sign(null, Buffer.from(ts + body), pair.privateKey).toString('hex');
      return { 'content-type': 'application/json', 'x-signature-ed25519': sig, 'x-signature-timestamp': ts };
    },
  };
}
