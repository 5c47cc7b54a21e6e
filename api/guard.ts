/**
 * Checks every request before routing: the Host header (DNS rebinding), the Origin
 * (cross-site requests and websocket hijacking) and the bearer token — on loopback too,
 * since any local process (a plugin, an MCP server's child, another user's program) can
 * reach a loopback port.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { KowalskiError } from '../core/index.js';
import { isOwnOrigin, parseHostHeader } from './hosts.js';
import { secretsEqual } from '../agents/index.js';

export interface GuardOptions {
  hostNames: ReadonlySet<string>;
  /** The port the server listens on (known once it listens). */
  port: () => number;
  /** Required on every non-public path. */
  token: string;
  /** Paths served without a token: the app's static files (they hold no data; the app then asks for the token). */
  publicPaths: ReadonlySet<string>;
  /**
   * Paths whose route checks a signature of its own (webhooks, chat adapters): they pass
   * without the token, and the route reads `req.tokenVerified` for what it takes unsigned.
   */
  signedPath: (path: string) => boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The request carried the API token (the guard refused every other request that lacked it, but those on a signed path). */
    tokenVerified: boolean;
  }
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
  app.decorateRequest('tokenVerified', false);
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
    const path = req.url.split('?')[0]!;
    if (options.publicPaths.has(path)) return;
    const given = presentedToken(req);
    req.tokenVerified = given !== undefined && secretsEqual(given, options.token);
    if (!req.tokenVerified && !options.signedPath(path)) {
      throw new KowalskiError('KW_ERR_UNAUTHORIZED', given === undefined
        ? 'every request needs the API token (kept owner-only in <data dir>/api-token) as "Authorization: Bearer <token>"; in a browser, open the sign-in link `kowalski open` prints'
        : 'the bearer token is wrong');
    }
  });
}
