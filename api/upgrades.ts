/**
 * Websocket upgrades are checked before routing, so every refusal is in our shape: an
 * upgrade asked of any path but the websocket's is 404 (rather than accepted and closed),
 * a handshake `ws` would refuse with a bare text answer (bad Upgrade, key, version or
 * subprotocol list) is 400 naming the header, and a plain GET of the websocket's path is
 * 404 with a body that says what it is. Past the hub's client limit, 503.
 */
import type { FastifyInstance } from 'fastify';
import { KowalskiError } from '../core/index.js';

/** An RFC 7230 token, what a subprotocol name must be. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** 16 random bytes in base64. */
const KEY = /^[+/0-9A-Za-z]{22}==$/;

function handshakeProblem(headers: Record<string, string | string[] | undefined>): string | undefined {
  if (String(headers.upgrade).toLowerCase() !== 'websocket') return `Upgrade must be "websocket", not ${JSON.stringify(headers.upgrade)}`;
  const key = headers['sec-websocket-key'];
  if (typeof key !== 'string' || !KEY.test(key.trim())) return 'Sec-WebSocket-Key must be 16 bytes in base64';
  const version = headers['sec-websocket-version'];
  if (version !== '13' && version !== '8') return `Sec-WebSocket-Version must be 13, not ${JSON.stringify(version)}`;
  const protocols = headers['sec-websocket-protocol'];
  if (protocols !== undefined) {
    const list = String(protocols).split(',').map((p) => p.trim());
    if (list.some((p) => !TOKEN.test(p)) || new Set(list).size !== list.length) return 'Sec-WebSocket-Protocol must be a list of distinct tokens';
  }
  return undefined;
}

/** Install after @fastify/websocket (its hook marks upgrade requests). */
export function installUpgradeChecks(app: FastifyInstance, wsPath: string, full: () => boolean): void {
  app.addHook('onRequest', async (req) => {
    const path = req.url.split('?')[0]!;
    const upgrade = req.ws; // set by @fastify/websocket's own hook for a request Node handed over as an upgrade
    if (upgrade && path !== wsPath) throw new KowalskiError('KW_ERR_NOT_FOUND', `no websocket at ${path}: the websocket is ${wsPath}`);
    if (path !== wsPath) return;
    if (!upgrade) throw new KowalskiError('KW_ERR_NOT_FOUND', `${req.method} ${wsPath} without "Upgrade: websocket": this path is only the websocket`);
    const problem = handshakeProblem(req.headers);
    if (problem !== undefined) throw new KowalskiError('KW_ERR_BAD_REQUEST', `websocket handshake: ${problem}`);
    if (full()) throw new KowalskiError('KW_ERR_SERVER_BUSY', 'the server already serves as many websocket clients as it allows; close another tab or follower and try again');
  });
}
