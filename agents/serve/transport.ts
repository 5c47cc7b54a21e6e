/**
 * Serving one of kowalski's own MCP servers (the data tool, the Rookery): over stdio by
 * default (stdout carries MCP and nothing else; log lines go to stderr), or over
 * Streamable HTTP at `/mcp`. Over HTTP each POST is one stateless exchange with a server
 * made for it; the Host header must name this server (DNS rebinding), an Origin, when
 * sent, too; every request needs `Authorization: Bearer <token>` (compared in constant
 * time): HTTP without a token is refused, on loopback too. Either way it ends
 * cleanly on SIGTERM or SIGINT, and over stdio when stdin closes.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { isIP } from 'node:net';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { KowalskiError, messageOf } from '../../core/index.js';
import type { ErrorCode } from '../../core/index.js';
import { isLoopback } from '../net/loopback.js';
import { secretsEqual } from '../net/secrets.js';

export interface ServeTransportOptions {
  /** Serve over Streamable HTTP instead of stdio (default false). */
  http?: boolean;
  /** HTTP: the address to bind (default 127.0.0.1). Beyond loopback a token is required. */
  host?: string;
  /** HTTP: the port (default 0: any free port, printed on stderr). */
  port?: number;
  /** HTTP: the bearer token every request must carry (default none). */
  token?: string;
  /** Where log lines go (default stderr). */
  log?: (line: string) => void;
  /** Stops the server when aborted (besides SIGTERM, SIGINT and, for stdio, stdin closing). */
  signal?: AbortSignal;
}

/** What the transport says about the server it carries. */
export interface ServedServer {
  /** In messages, e.g. `the data tool`. */
  label: string;
  /** What a token protects, after "so that only those who hold it can", e.g. `query your files`. */
  guards: string;
  /** A new MCP server, not yet connected: one for stdio, one per HTTP request. */
  create: () => McpServer;
}

/**
 * Refuse (KW_ERR_USAGE) HTTP without a token, on loopback too: any local process can reach
 * a loopback port (a plugin, another user's program), and the Rookery's server writes
 * hordes whose commands would run. Call it before opening anything costly.
 */
export function requireTokenForHttp(options: ServeTransportOptions, guards: string): void {
  if (options.http === true && (options.token ?? '') === '') {
    const where = isLoopback(options.host ?? '127.0.0.1') ? 'on loopback too, since any local process can reach a loopback port' : `${options.host} is not a loopback address`;
    throw new KowalskiError('KW_ERR_USAGE', `--http needs --token (or KOWALSKI_MCP_TOKEN), ${where}: only those who hold it may ${guards}`);
  }
}

/** Serve until asked to stop. */
export async function serveMcp(served: ServedServer, options: ServeTransportOptions): Promise<void> {
  requireTokenForHttp(options, served.guards);
  if (options.http === true) await serveHttp(served, options);
  else await serveStdio(served, options);
}

function isWildcard(host: string): boolean {
  return host === '0.0.0.0' || host === '::' || host === '[::]';
}

/** Resolves when a signal, `signal` or (stdio) the end of stdin asks the server to stop. */
function stopRequested(options: ServeTransportOptions, stdio: boolean): { stopped: Promise<string>; dispose: () => void } {
  let dispose = (): void => undefined;
  const stopped = new Promise<string>((resolve) => {
    const onSignal = (sig: NodeJS.Signals): void => resolve(sig);
    const onEnd = (): void => resolve('stdin closed');
    const onAbort = (): void => resolve('stopped');
    process.once('SIGTERM', onSignal);
    process.once('SIGINT', onSignal);
    if (stdio) {
      process.stdin.once('end', onEnd);
      process.stdin.once('close', onEnd);
    }
    options.signal?.addEventListener('abort', onAbort, { once: true });
    if (options.signal?.aborted === true) resolve('stopped');
    dispose = () => {
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      process.stdin.off('end', onEnd);
      process.stdin.off('close', onEnd);
      options.signal?.removeEventListener('abort', onAbort);
    };
  });
  return { stopped, dispose };
}

async function serveStdio(served: ServedServer, options: ServeTransportOptions): Promise<void> {
  const server = served.create();
  const transport = new StdioServerTransport();
  const { stopped, dispose } = stopRequested(options, true);
  await server.connect(transport);
  await stopped;
  dispose();
  await server.close();
}

/** Whether `header` is `Bearer <token>`, in time that does not depend on where they differ. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer\s+(.+)$/i.exec(header ?? '')?.[1]?.trim() ?? '';
  return secretsEqual(given, token) && given !== '';
}

function refuse(res: http.ServerResponse, status: number, code: ErrorCode, message: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify({ error: { code, message } }));
}

/** The host names (no port) a request's Host header may carry. */
function allowedHosts(host: string): Set<string> | null {
  if (isWildcard(host)) return null; // any name may reach a wildcard bind; the token guards it
  const names = new Set(['localhost', '127.0.0.1', '[::1]']);
  names.add(isIP(host) === 6 ? `[${host}]` : host.toLowerCase());
  return names;
}

function hostnameOf(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith('[')) return h.slice(0, h.indexOf(']') + 1);
  return h.replace(/:\d+$/, '');
}

async function serveHttp(served: ServedServer, options: ServeTransportOptions): Promise<void> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const host = options.host ?? '127.0.0.1';
  const allowed = allowedHosts(host);
  const token = options.token ?? '';
  const httpServer = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/mcp') {
      refuse(res, 404, 'KW_ERR_NOT_FOUND', `${served.label} answers at /mcp`);
      return;
    }
    if (allowed !== null && !allowed.has(hostnameOf(req.headers.host ?? ''))) {
      refuse(res, 403, 'KW_ERR_FORBIDDEN_HOST', `the Host header ${JSON.stringify(req.headers.host ?? '')} does not name this server`);
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined && allowed !== null) {
      let originHost = '';
      try {
        originHost = new URL(origin).hostname.toLowerCase();
      } catch {
        // an Origin that is not a URL is refused below
      }
      if (!allowed.has(originHost)) {
        refuse(res, 403, 'KW_ERR_FORBIDDEN_ORIGIN', `requests from pages of ${JSON.stringify(origin)} are refused`);
        return;
      }
    }
    if (token !== '' && !bearerMatches(req.headers.authorization, token)) {
      refuse(res, 401, 'KW_ERR_UNAUTHORIZED', 'a bearer token is required: Authorization: Bearer <token>', { 'www-authenticate': 'Bearer' });
      return;
    }
    if (req.method !== 'POST') {
      refuse(res, 405, 'KW_ERR_BAD_REQUEST', 'this server is stateless: POST JSON-RPC messages to /mcp', { allow: 'POST' });
      return;
    }
    void exchange(served, req, res).catch((err: unknown) => {
      log(`${served.label}: ${messageOf(err)}`);
      if (!res.headersSent) refuse(res, 500, 'KW_ERR_INTERNAL', 'the request could not be handled');
    });
  });
  const { stopped, dispose } = stopRequested(options, false);
  try {
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error): void => reject(new KowalskiError('KW_ERR_LISTEN', `cannot listen on ${host}:${options.port ?? 0}: ${err.message}`));
      httpServer.once('error', onError);
      httpServer.listen(options.port ?? 0, host, () => {
        httpServer.off('error', onError);
        resolve();
      });
    });
  } catch (err) {
    dispose();
    throw err;
  }
  const { port } = httpServer.address() as AddressInfo;
  log(`listening on http://${isIP(host) === 6 ? `[${host}]` : host}:${port}/mcp`);
  await stopped;
  dispose();
  httpServer.closeAllConnections();
  await new Promise<void>((resolve) => httpServer.close(() => resolve()));
}

/** One stateless request: a server and a transport for it alone, closed when the response is. */
async function exchange(served: ServedServer, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  const server = served.create();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res);
}
