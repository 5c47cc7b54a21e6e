/**
 * buildApi(engine): the Fastify app — JSON routes, the websocket hub, the operator app's
 * files, and the security checks in front of all of them. It is returned not yet listening.
 */
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import Fastify from 'fastify';
import type { FastifyInstance } from 'fastify';
import websocket from '@fastify/websocket';
import { KowalskiError } from '../core/index.js';
import type { Engine, RecoverySummary } from '../engine/index.js';
import { packageRoot, packageVersion, scrubSecrets } from '../engine/index.js';
import { installGuard } from './guard.js';
import { allowedHostNames } from './hosts.js';
import { createLoginCodes } from './login-codes.js';
import type { LoginCodes } from './login-codes.js';
import { EXCHANGE_PATH, authRoutes } from './routes/auth.js';
import { answerConnect, createClientErrorHandler } from './client-errors.js';
import { answerError, installErrorHandling } from './http-errors.js';
import type { ErrorSinks } from './http-errors.js';
import { agentRoutes } from './routes/agents.js';
import { bundleRoutes } from './routes/bundles.js';
import { chatRoutes } from './routes/chat.js';
import { healthRoutes } from './routes/health.js';
import { hordeRoutes } from './routes/hordes.js';
import { runRoutes } from './routes/runs.js';
import { reviewRoutes } from './routes/review.js';
import { setupRoutes } from './routes/setup.js';
import { traceRoutes } from './routes/traces.js';
import { triggerRoutes } from './routes/triggers.js';
import { vaultRoutes } from './routes/vault.js';
import { hookRoutes } from './routes/hooks.js';
import { MCP_CALLBACK_PATH, mcpSignInRoutes } from './routes/mcp-sign-in.js';
import { setupMcpRoutes } from './routes/setup-mcp.js';
import { setupAdapterRoutes } from './routes/setup-adapters.js';
import { adapterWebhookRoutes } from './routes/adapter-webhook.js';
import { adapterRoutes } from './routes/adapters.js';
import { adapterPluginRoutes } from './routes/adapter-plugin.js';
import { discordRoutes } from './routes/adapter-discord.js';
import { slackRoutes } from './routes/adapter-slack.js';
import { UI_PATHS, uiRoutes } from './routes/ui.js';
import { vaultSearchRoutes } from './routes/vault-search.js';
import { memoryRoutes } from './routes/memory.js';
import { rookeryRoutes } from './routes/rookery.js';
import { pluginRoutes } from './routes/plugins.js';
import { nodeRoutes } from './routes/nodes.js';
import { installUpgradeChecks } from './upgrades.js';
import { installMemoryRelief } from './memory-relief.js';
import type { MemoryReliefOptions } from './memory-relief.js';
import { createLazyValidators, lazyValidatorOptions } from './lazy-validators.js';
import { installUploadLimit } from './upload-limit.js';
import type { UploadLimit } from './upload-limit.js';
import { WS_MAX_FRAME, createWsHub } from './ws-hub.js';
import type { WsHub } from './ws-hub.js';

export const DEFAULT_PORT = 8765;
const BODY_LIMIT = 1024 * 1024;
const WS_PATH = '/api/ws';
const REQUEST_TIMEOUT_MS = 120_000;

export interface ApiOptions {
  /** The address the server is (or will be) bound to (default 127.0.0.1): it decides the Host names. */
  host?: string;
  /** Default 8765; 0 = whatever the listening socket got. */
  port?: number;
  /** The API token every request carries (at least 32 characters): `loadOrCreateToken` keeps it in the data folder. */
  token: string;
  /** Extra Host names to accept (e.g. a name in /etc/hosts). */
  allowedHosts?: string[];
  /** Default: the package's ui/dist. */
  uiDir?: string;
  /** What the last start recovered (shown by the app after a restart). */
  recovery?: RecoverySummary;
  /** Bytes that may wait for one websocket client before it is disconnected as too slow (default 4 MiB). */
  wsMaxBuffered?: number;
  /** Websocket clients at once (default 32); one more is refused with 503 KW_ERR_SERVER_BUSY. */
  wsMaxClients?: number;
  /** Uploads (POST /api/bundles) taken at once (default 2); one more is refused with 503 KW_ERR_SERVER_BUSY. */
  maxUploads?: number;
  /** A full collection once large bodies stopped coming (memory-relief.ts; default: with the process's `gc`, when exposed). */
  memoryRelief?: MemoryReliefOptions;
  /** A request must arrive whole (headers and body) within this many ms, or it is answered 408 KW_ERR_REQUEST_TIMEOUT and closed (default 120,000). */
  requestTimeoutMs?: number;
  /** Where unexpected errors go (default: stderr, with the stack). */
  onInternalError?: (err: unknown) => void;
  /** Where one-line notices go, e.g. a client that went away mid-upload (default: stderr, prefixed `kowalski server: `). */
  log?: (line: string) => void;
}

export interface Api {
  app: FastifyInstance;
  /** One-time sign-in codes the app trades for the token (`/?code=…`). */
  loginCodes: LoginCodes;
  hub: WsHub;
  uploads: UploadLimit;
  /** Compile every route's validator now (each compiles at its route's first request); after `app.ready()`. Throws the first that does not compile; how many there are. */
  compileSchemas(): number;
}

export async function buildApi(engine: Engine, options: ApiOptions): Promise<Api> {
  const host = options.host ?? '127.0.0.1';
  if (typeof options.token !== 'string' || options.token.length < 32) {
    throw new KowalskiError('KW_ERR_USAGE', 'the server needs an API token of at least 32 characters, on loopback too');
  }
  const loginCodes = createLoginCodes();
  const version = packageVersion();
  const startedAt = Date.now();
  // No answer or log line shows a secret of config.toml, nor the token.
  const scrub = (text: string): string => scrubSecrets(text, [...engine.secretValues(), options.token]);
  const log = options.log ?? ((line: string) => process.stderr.write(`kowalski server: ${line}\n`));
  const sinks: ErrorSinks = {
    onInternal: options.onInternalError ?? ((err: unknown) => process.stderr.write(`kowalski server: ${scrub((err as Error).stack ?? String(err))}\n`)),
    log: (line) => log(scrub(line)),
    scrub,
  };
  const requestTimeout = options.requestTimeoutMs ?? REQUEST_TIMEOUT_MS;
  const validators = createLazyValidators();
  const app = Fastify({
    ...lazyValidatorOptions(validators),
    bodyLimit: BODY_LIMIT, logger: false, return503OnClosing: true, forceCloseConnections: true,
    // A body is exactly what the schema says: no silent type coercion, no silently dropped fields.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
    // The router's refusals (a path that does not decode, a part too long) and the HTTP parser's answer in our shape too.
    frameworkErrors: answerError(sinks),
    clientErrorHandler: createClientErrorHandler(),
    // A stalled request (an upload that stops mid-body) cannot hold its place for ever; Node checks every quarter of the limit (at most 30 s).
    requestTimeout,
    // A request with no Host reaches the guard (403 in our shape) instead of Node's bare 400.
    http: { requireHostHeader: false, connectionsCheckingInterval: Math.min(30_000, Math.max(50, Math.round(requestTimeout / 4))) },
  });
  app.server.headersTimeout = Math.min(app.server.headersTimeout, requestTimeout);
  app.server.on('connect', answerConnect);
  app.removeContentTypeParser(['text/plain']);
  installErrorHandling(app, sinks);
  // Port 0: the port the socket got, asked of it once it is listening (not at every request: each ask is a syscall).
  let bound: number | undefined;
  const port = (): number => {
    if (options.port !== undefined && options.port !== 0) return options.port;
    bound ??= (app.server.address() as AddressInfo | null)?.port;
    return bound ?? DEFAULT_PORT;
  };
  installGuard(app, {
    hostNames: allowedHostNames(host, options.allowedHosts),
    port,
    token: options.token,
    // A sign-in code is the exchange's check; an MCP sign-in's one-time state is its callback's.
    publicPaths: new Set([...UI_PATHS, EXCHANGE_PATH, MCP_CALLBACK_PATH]),
    // Slack, Discord and webhook senders cannot send our token: their signatures are these
    // routes' check (a webhook trigger without a secret still needs the token: routes/hooks.ts).
    signedPath: (p) => p.startsWith('/adapters/') || p.startsWith('/hooks/'),
  });
  const relief = installMemoryRelief(app, options.memoryRelief);
  const uploads = installUploadLimit(app, { jsonLimit: BODY_LIMIT, ...(options.maxUploads === undefined ? {} : { max: options.maxUploads }) });
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
  const hub = createWsHub(engine, version, {
    scrub,
    onDropped: () => relief.soon(),
    ...(options.wsMaxBuffered === undefined ? {} : { maxBuffered: options.wsMaxBuffered }),
    ...(options.wsMaxClients === undefined ? {} : { maxClients: options.wsMaxClients }),
  });
  installUpgradeChecks(app, WS_PATH, () => hub.full);
  app.get(WS_PATH, { websocket: true }, (socket) => hub.attach(socket));
  app.addHook('preClose', async () => hub.close());

  healthRoutes(app, () => ({ version, auth: 'token', startedAt, recovery: options.recovery ?? null }));
  authRoutes(app, loginCodes, options.token);
  hordeRoutes(app, engine);
  runRoutes(app, engine);
  reviewRoutes(app, engine);
  setupRoutes(app, engine);
  mcpSignInRoutes(app, engine);
  setupMcpRoutes(app, engine);
  setupAdapterRoutes(app, engine);
  traceRoutes(app, engine);
  chatRoutes(app, engine);
  await app.register(bundleRoutes, { engine });
  triggerRoutes(app, engine);
  agentRoutes(app, engine);
  vaultRoutes(app, engine);
  vaultSearchRoutes(app, engine);
  memoryRoutes(app, engine);
  rookeryRoutes(app, engine);
  pluginRoutes(app, engine);
  nodeRoutes(app, engine);
  await hookRoutes(app, engine);
  adapterRoutes(app, engine);
  await adapterWebhookRoutes(app, engine);
  await slackRoutes(app, engine);
  await discordRoutes(app, engine);
  await adapterPluginRoutes(app, engine);
  uiRoutes(app, options.uiDir ?? path.join(packageRoot(import.meta.url), 'ui', 'dist'));
  return { app, loginCodes, hub, uploads, compileSchemas: () => validators.compileAll() };
}
