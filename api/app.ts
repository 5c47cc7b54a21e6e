/**
 * buildApi(engine): the Fastify app — JSON routes, the websocket hub, the operator app's
 * files, and the security checks in front of all of them. It is returned not yet listening.
 */
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import { KowalskiError } from '../core/index.js';
import type { Engine, RecoverySummary } from '../engine/index.js';
import { packageRoot } from '../engine/index.js';
import { installGuard } from './guard.js';
import { allowedHostNames, isLoopback } from './hosts.js';
import { installErrorHandling } from './http-errors.js';
import { bundleRoutes } from './routes/bundles.js';
import { healthRoutes } from './routes/health.js';
import { hordeRoutes } from './routes/hordes.js';
import { runRoutes } from './routes/runs.js';
import { setupRoutes } from './routes/setup.js';
import { traceRoutes } from './routes/traces.js';
import { triggerRoutes } from './routes/triggers.js';
import { hookRoutes } from './routes/hooks.js';
import { UI_PATHS, uiRoutes } from './routes/ui.js';
import { WS_MAX_FRAME, createWsHub } from './ws-hub.js';
import type { WsHub } from './ws-hub.js';

export const DEFAULT_PORT = 8765;
const BODY_LIMIT = 1024 * 1024;

export interface ApiOptions {
  /** The address the server is (or will be) bound to (default 127.0.0.1): it decides the Host names and whether a token is needed. */
  host?: string;
  /** Default 8765; 0 = whatever the listening socket got. */
  port?: number;
  /** Required when `host` is not a loopback address. */
  token?: string;
  /** Extra Host names to accept (e.g. a name in /etc/hosts). */
  allowedHosts?: string[];
  /** Default: the package's ui/dist. */
  uiDir?: string;
  /** What the last start recovered (shown by the app after a restart). */
  recovery?: RecoverySummary;
  /** Bytes that may wait for one websocket client before it is disconnected as too slow (default 4 MiB). */
  wsMaxBuffered?: number;
  /** Where unexpected errors go (default: stderr). */
  onInternalError?: (err: unknown) => void;
}

export interface Api {
  app: FastifyInstance;
  hub: WsHub;
}

function packageVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(path.join(packageRoot(import.meta.url), 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

export async function buildApi(engine: Engine, options: ApiOptions = {}): Promise<Api> {
  const host = options.host ?? '127.0.0.1';
  const loopback = isLoopback(host);
  if (!loopback && (options.token === undefined || options.token.length < 32)) {
    throw new KowalskiError('KW_ERR_USAGE', `bound to ${host}, the server needs a bearer token of at least 32 characters`);
  }
  const version = packageVersion();
  const startedAt = Date.now();
  const app = Fastify({
    bodyLimit: BODY_LIMIT, logger: false, return503OnClosing: true, forceCloseConnections: true,
    // A body is exactly what the schema says: no silent type coercion, no silently dropped fields.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
  });
  app.removeContentTypeParser(['text/plain']);
  const onInternal = options.onInternalError ?? ((err: unknown) => process.stderr.write(`kowalski server: ${(err as Error).stack ?? String(err)}\n`));
  installErrorHandling(app, onInternal);
  installGuard(app, {
    hostNames: allowedHostNames(host, options.allowedHosts),
    port: () => (options.port !== undefined && options.port !== 0 ? options.port : ((app.server.address() as AddressInfo | null)?.port ?? DEFAULT_PORT)),
    ...(loopback ? {} : { token: options.token! }),
    publicPaths: UI_PATHS,
  });
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer').header('x-frame-options', 'DENY');
    if (req.url.startsWith('/api/')) reply.header('cache-control', 'no-store');
  });

  // A refused websocket upgrade (403, 401) answers over the raw socket, which the HTTP server
  // no longer tracks: close it, or it stays open (and keeps the server from closing).
  app.addHook('onResponse', async (req, reply) => {
    if (req.raw.headers.upgrade !== undefined && reply.statusCode >= 400) req.raw.socket.destroy();
  });
  await app.register(websocket, {
    options: {
      maxPayload: WS_MAX_FRAME,
      // The app offers `kowalski` (and `bearer.<token>` for the token): answer with `kowalski`, never echo the token.
      handleProtocols: (protocols: Set<string>) => (protocols.has('kowalski') ? 'kowalski' : false),
    },
  });
  const hub = createWsHub(engine, version, options.wsMaxBuffered);
  app.get('/api/ws', { websocket: true }, (socket) => hub.attach(socket));
  app.addHook('preClose', async () => hub.close());

  healthRoutes(app, () => ({ version, auth: loopback ? 'none' : 'token', startedAt, recovery: options.recovery ?? null }));
  hordeRoutes(app, engine);
  runRoutes(app, engine);
  setupRoutes(app, engine);
  traceRoutes(app, engine);
  await app.register(bundleRoutes, { engine });
  triggerRoutes(app, engine);
  await hookRoutes(app, engine);
  uiRoutes(app, options.uiDir ?? path.join(packageRoot(import.meta.url), 'ui', 'dist'));
  return { app, hub };
}
