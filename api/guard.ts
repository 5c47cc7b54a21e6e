/**
 * Checks every request before routing: the Host header (DNS rebinding), the Origin
 * (cross-site requests and websocket hijacking) and, off loopback, the bearer token.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { KowalskiError } from '../core/index.js';
import { isOwnOrigin, parseHostHeader } from './hosts.js';
import { secretsEqual } from '../agents/index.js';

export interface GuardOptions {
  hostNames: ReadonlySet<string>;
  /** The port the server listens on (known once it listens). */
  port: () => number;
  /** Required on every non-public path when set. */
  token?: string;
  /** Paths served without a token: the app's static files (they hold no data; the app then asks for the token). */
  publicPaths: ReadonlySet<string>;
}

/** The token a request carries: `Authorization: Bearer …`, or (browsers' websockets) a `bearer.…` subprotocol. */
export function presentedToken(req: FastifyRequest): string | undefined {
  const auth = req.headers.authorization;
  if (auth !== undefined) {
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth);
    return m?.[1];
  }
  const protocols = req.headers['sec-websocket-protocol'];
  if (typeof protocols === 'string') {
    for (const p of protocols.split(',')) {
      const t = p.trim();
      if (t.startsWith('bearer.')) return t.slice('bearer.'.length);
    }
  }
  return undefined;
}

export function installGuard(app: FastifyInstance, options: GuardOptions): void {
  app.addHook('onRequest', async (req) => {
    const hostHeader = req.headers.host ?? '';
    const host = parseHostHeader(hostHeader);
    if (host === undefined || !options.hostNames.has(host.name) || (host.port ?? 80) !== options.port()) {
      throw new KowalskiError('KW_ERR_FORBIDDEN_HOST', `Host ${JSON.stringify(hostHeader)} does not name this server; open it as http://127.0.0.1:${options.port()}/`);
    }
    const origin = req.headers.origin;
    if (origin !== undefined && !isOwnOrigin(origin, options.hostNames, options.port())) {
      throw new KowalskiError('KW_ERR_FORBIDDEN_ORIGIN', `requests from ${JSON.stringify(origin)} are refused: only this server's own app (http://127.0.0.1:${options.port()}) may call it`);
    }
    if (options.token === undefined || options.publicPaths.has(req.url.split('?')[0]!)) return;
    const given = presentedToken(req);
    if (given === undefined || !secretsEqual(given, options.token)) {
      throw new KowalskiError('KW_ERR_UNAUTHORIZED', given === undefined
        ? 'this server is bound beyond loopback: send the token printed by `kowalski serve` as "Authorization: Bearer <token>"'
        : 'the bearer token is wrong');
    }
  });
}
