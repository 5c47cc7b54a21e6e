/**
 * An OAuth-protected MCP server on 127.0.0.1, built with the MCP SDK's own server-side auth:
 * `mcpAuthRouter` (protected-resource and authorization-server metadata, dynamic client
 * registration, authorize, token, revoke) over an in-memory OAuthServerProvider, and
 * `requireBearerAuth` in front of a stateless Streamable HTTP endpoint at `/mcp` with one
 * tool, `whoami`. Its authorize page approves at once (a redirect back with the code), so a
 * test follows the address `kowalski mcp login` prints with plain HTTP. Access tokens last
 * `tokenSecs`; refresh tokens rotate at each use and can be revoked.
 */
import { once } from 'node:events';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Response } from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { getOAuthProtectedResourceMetadataUrl, mcpAuthRouter } from '@modelcontextprotocol/sdk/server/auth/router.js';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidGrantError, InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthRegisteredClientsStore } from '@modelcontextprotocol/sdk/server/auth/clients.js';
import type { AuthorizationParams, OAuthServerProvider } from '@modelcontextprotocol/sdk/server/auth/provider.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { OAuthClientInformationFull, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';

export interface OAuthMcpOptions {
  /** How long an access token lasts, seconds (default 2). */
  tokenSecs?: number;
}

export interface OAuthMcp {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp`. */
  url: string;
  /** What happened so far: clients registered, codes issued, tokens issued by code and by refresh, MCP requests refused with 401. */
  counts: { registrations: number; authorizations: number; codeExchanges: number; refreshes: number; refused: number };
  /** Every access token issued, in order. */
  accessTokens(): string[];
  /** Refuse every refresh token issued so far (invalid_grant from now on). */
  revokeRefreshTokens(): void;
  /** Make every access token issued so far expire now (the next MCP request with one gets 401). */
  expireAccessTokens(): void;
  close(): Promise<void>;
}

interface Code { clientId: string; challenge: string; redirectUri: string }
interface Access { clientId: string; expiresAt: number; resource?: URL }

class MemoryAuthProvider implements OAuthServerProvider {
  readonly clients = new Map<string, OAuthClientInformationFull>();
  readonly codes = new Map<string, Code>();
  readonly access = new Map<string, Access>();
  /** refresh token → its client; a revoked one is removed. */
  readonly refresh = new Map<string, string>();
  readonly issued: string[] = [];
  readonly counts = { registrations: 0, authorizations: 0, codeExchanges: 0, refreshes: 0, refused: 0 };

  constructor(private readonly tokenSecs: number) {}

  get clientsStore(): OAuthRegisteredClientsStore {
    return {
      getClient: (id) => this.clients.get(id),
      registerClient: (client) => {
        const full = client as OAuthClientInformationFull;
        this.clients.set(full.client_id, full);
        this.counts.registrations++;
        return full;
      },
    };
  }

  authorize(client: OAuthClientInformationFull, params: AuthorizationParams, res: Response): Promise<void> {
    const code = randomBytes(16).toString('hex');
    this.codes.set(code, { clientId: client.client_id, challenge: params.codeChallenge, redirectUri: params.redirectUri });
    this.counts.authorizations++;
    const back = new URL(params.redirectUri);
    back.searchParams.set('code', code);
    if (params.state !== undefined) back.searchParams.set('state', params.state);
    res.redirect(back.href);
    return Promise.resolve();
  }

  challengeForAuthorizationCode(_client: OAuthClientInformationFull, code: string): Promise<string> {
    const found = this.codes.get(code);
    if (found === undefined) return Promise.reject(new InvalidGrantError('unknown authorization code'));
    return Promise.resolve(found.challenge);
  }

  exchangeAuthorizationCode(client: OAuthClientInformationFull, code: string, _verifier?: string, redirectUri?: string, resource?: URL): Promise<OAuthTokens> {
    const found = this.codes.get(code);
    if (found === undefined || found.clientId !== client.client_id) return Promise.reject(new InvalidGrantError('unknown authorization code'));
    if (redirectUri !== undefined && redirectUri !== found.redirectUri) return Promise.reject(new InvalidGrantError('redirect_uri differs from the authorization request'));
    this.codes.delete(code);
    this.counts.codeExchanges++;
    return Promise.resolve(this.issue(client.client_id, resource));
  }

  exchangeRefreshToken(client: OAuthClientInformationFull, refreshToken: string, _scopes?: string[], resource?: URL): Promise<OAuthTokens> {
    if (this.refresh.get(refreshToken) !== client.client_id) return Promise.reject(new InvalidGrantError('the refresh token was revoked'));
    this.refresh.delete(refreshToken);
    this.counts.refreshes++;
    return Promise.resolve(this.issue(client.client_id, resource));
  }

  verifyAccessToken(token: string): Promise<AuthInfo> {
    const found = this.access.get(token);
    if (found === undefined) return Promise.reject(new InvalidTokenError('unknown access token'));
    // Not rounded to the second: requireBearerAuth compares with Date.now() / 1000.
    return Promise.resolve({ token, clientId: found.clientId, scopes: [], expiresAt: found.expiresAt / 1000, ...(found.resource === undefined ? {} : { resource: found.resource }) });
  }

  private issue(clientId: string, resource: URL | undefined): OAuthTokens {
    const accessToken = randomBytes(16).toString('hex');
    const refreshToken = randomBytes(16).toString('hex');
    this.access.set(accessToken, { clientId, expiresAt: Date.now() + this.tokenSecs * 1000, ...(resource === undefined ? {} : { resource }) });
    this.refresh.set(refreshToken, clientId);
    this.issued.push(accessToken);
    return { access_token: accessToken, token_type: 'Bearer', expires_in: this.tokenSecs, refresh_token: refreshToken };
  }
}

/** Start the server; the caller closes it. */
export async function startOAuthMcp(options: OAuthMcpOptions = {}): Promise<OAuthMcp> {
  const provider = new MemoryAuthProvider(options.tokenSecs ?? 2);
  const server = http.createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const base = new URL(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  const mcpUrl = new URL('/mcp', base);

  const app = express();
  const noLimit = { rateLimit: false as const };
  app.use(mcpAuthRouter({
    provider,
    issuerUrl: base,
    resourceServerUrl: mcpUrl,
    resourceName: 'kowalski test server',
    authorizationOptions: noLimit,
    tokenOptions: noLimit,
    clientRegistrationOptions: noLimit,
    revocationOptions: noLimit,
  }));
  const bearer = requireBearerAuth({ verifier: provider, resourceMetadataUrl: getOAuthProtectedResourceMetadataUrl(mcpUrl) });
  app.use('/mcp', (req, res, next) => {
    res.on('finish', () => {
      if (res.statusCode === 401) provider.counts.refused++;
    });
    next();
  });
  app.use('/mcp', bearer);
  app.use('/mcp', express.json());
  app.all('/mcp', (req, res) => {
    if (req.method !== 'POST') {
      res.status(405).json({ error: 'this server is stateless: POST only' });
      return;
    }
    // Stateless: a new server and transport for each request.
    const mcp = new McpServer({ name: 'oauth-test', version: '1.0.0' });
    mcp.registerTool('whoami', { description: 'Says which client called' }, (extra) => ({ content: [{ type: 'text' as const, text: `signed in as ${extra.authInfo?.clientId ?? 'nobody'}` }] }));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void mcp.close();
    });
    mcp.connect(transport)
      .then(() => transport.handleRequest(req, res, req.body))
      .catch((err: unknown) => res.destroy(err as Error));
  });
  server.on('request', app);

  return {
    url: mcpUrl.href,
    counts: provider.counts,
    accessTokens: () => [...provider.issued],
    revokeRefreshTokens: () => provider.refresh.clear(),
    expireAccessTokens: () => {
      for (const a of provider.access.values()) a.expiresAt = Math.min(a.expiresAt, Date.now() - 1);
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

