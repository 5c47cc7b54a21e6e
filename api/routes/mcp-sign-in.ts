/**
 * Setup's Sign in for MCP servers reached over HTTP: the same OAuth flow as `kowalski mcp
 * login` (agents/mcp/oauth-login.ts), with this server as the place the browser comes back
 * to. `GET /api/setup/mcp` lists the servers and whether a sign-in is stored (never its
 * tokens); `POST /api/setup/mcp/:server/sign-in` starts a flow and answers the
 * authorization page's address; `GET /api/mcp/oauth/callback` (public: the authorization
 * server's redirect cannot carry our token; its one-time `state` is the check) finishes it
 * and answers a small page. Flows under way live on this app, 5 minutes at most.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { McpHttpServer } from '../../agents/index.js';
import { readSignIn } from '../../agents/mcp/oauth-store.js';
import type { McpSignInStatus } from '../../contract/index.js';
import { KowalskiError, messageOf } from '../../core/index.js';
import type { Engine } from '../../engine/index.js';

/** The callback's path (public: see installGuard's publicPaths in app.ts). */
export const MCP_CALLBACK_PATH = '/api/mcp/oauth/callback';
/** How long a started sign-in waits for its callback, ms. */
const FLOW_LIMIT_MS = 5 * 60_000;
/** Sign-ins under way at once, at most (each holds a registered client). */
const MAX_FLOWS = 20;

interface Pending {
  server: string;
  startedAt: number;
  finish(query: URLSearchParams): Promise<void>;
}

function page(reply: FastifyReply, status: number, title: string, text: string): FastifyReply {
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return reply.code(status).type('text/html; charset=utf-8')
    .send(`<!doctype html><meta charset="utf-8"><title>${esc(title)}</title><body style="font-family:sans-serif;max-width:40em;margin:4em auto"><h1 data-testid="sign-in-result">${esc(title)}</h1><p>${esc(text)}</p></body>\n`);
}

function httpServers(engine: Engine): McpHttpServer[] {
  return engine.config.mcpServers.filter((s): s is McpHttpServer => s.transport === 'http');
}

function statusOf(engine: Engine, server: McpHttpServer): McpSignInStatus {
  try {
    const signIn = readSignIn(engine.paths.dataDir, server.name);
    const current = signIn?.url === server.url ? signIn : undefined;
    return { name: server.name, url: server.url, signedIn: current?.tokens !== undefined, refusedAt: current?.refusedAt ?? null, problem: null };
  } catch (err) {
    return { name: server.name, url: server.url, signedIn: false, refusedAt: null, problem: messageOf(err) };
  }
}

export function mcpSignInRoutes(app: FastifyInstance, engine: Engine): void {
  const pending = new Map<string, Pending>();
  const prune = (): void => {
    const now = Date.now();
    for (const [state, p] of pending) if (now - p.startedAt > FLOW_LIMIT_MS) pending.delete(state);
  };

  app.get('/api/setup/mcp', async () => ({ servers: httpServers(engine).map((s) => statusOf(engine, s)) }));

  app.post<{ Params: { server: string } }>('/api/setup/mcp/:server/sign-in', async (req) => {
    const server = httpServers(engine).find((s) => s.name === req.params.server);
    if (server === undefined) {
      throw new KowalskiError('KW_ERR_BAD_REQUEST', `no MCP server reached over HTTP is named ${JSON.stringify(req.params.server)} in ${engine.paths.config}`);
    }
    prune();
    if (pending.size >= MAX_FLOWS) throw new KowalskiError('KW_ERR_BAD_REQUEST', `${MAX_FLOWS} sign-ins are under way already: finish one, or wait ${FLOW_LIMIT_MS / 60_000} minutes`);
    const { startSignIn } = await import('../../agents/mcp/oauth-login.js');
    // The browser comes back to this server as it reached it (its Host was checked by the guard).
    const flow = await startSignIn({ dataDir: engine.paths.dataDir, server, redirectUrl: `http://${req.headers.host ?? '127.0.0.1'}${MCP_CALLBACK_PATH}` });
    const state = flow.authorizationUrl.searchParams.get('state');
    if (state === null) throw new KowalskiError('KW_ERR_MCP_LOGIN', `signing in to MCP server "${server.name}" failed: the authorization address carries no state`);
    pending.set(state, { server: server.name, startedAt: Date.now(), finish: (q) => flow.finish(q) });
    return { authorizationUrl: flow.authorizationUrl.href };
  });

  app.get<{ Querystring: Record<string, string> }>(MCP_CALLBACK_PATH, async (req, reply) => {
    prune();
    const query = new URLSearchParams(req.query);
    const state = query.get('state') ?? '';
    const flow = pending.get(state);
    if (flow === undefined) return page(reply, 400, 'Sign-in failed', 'This sign-in is unknown or has expired (5 minutes): start it again from Setup.');
    pending.delete(state);
    try {
      await flow.finish(query);
    } catch (err) {
      return page(reply, 400, 'Sign-in failed', messageOf(err));
    }
    return page(reply, 200, 'Signed in', `kowalski is signed in to the MCP server "${flow.server}". You can close this tab and go back to Setup.`);
  });
}
