/**
 * The MCP SDK's OAuthClientProvider, backed by one server's stored sign-in (oauth-store.ts).
 *
 * Two uses. `kowalski mcp login` gives it `login`: the flow runs in memory (PKCE verifier,
 * dynamic registration, discovery) and the file is written once, when the tokens arrive, so
 * a login that fails changes nothing stored. A connection gives it no `login`: it reads the
 * file (again when another process rewrote it), refreshes the access token before it
 * expires (when less than min(60 s, 10 % of its lifetime) remains), and the SDK's transport
 * refreshes once more after a 401. It can never ask a person to sign in: where the SDK
 * would send one to the authorization page, it throws KW_ERR_MCP_SIGN_IN naming
 * `kowalski mcp login <server>`.
 */
import { refreshAuthorization } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientProvider, OAuthDiscoveryState } from '@modelcontextprotocol/sdk/client/auth.js';
import { InvalidGrantError, OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { KowalskiError, messageOf } from '../../core/index.js';
import type { McpHttpServer } from './config.js';
import { readSignIn, signInFile, signInVersion, writeSignIn } from './oauth-store.js';
import type { McpSignIn, StoredTokens } from './oauth-store.js';

/** Refresh when less than this much of an access token's life remains, ms… */
const REFRESH_MARGIN_MS = 60_000;
/** …or less than this share of its lifetime, whichever is smaller. */
const REFRESH_MARGIN_SHARE = 0.1;
const CLIENT_NAME = 'kowalski';

export interface McpOAuthLogin {
  /** The loopback address the authorization server sends the browser back to. */
  redirectUrl: string;
  /** The `state` sent with the authorization request (the callback must bring it back). */
  state: string;
  /** Called with the authorization page's address: print it, open a browser. */
  onAuthorizationUrl(url: URL): void;
}

export interface McpOAuthProviderOptions {
  /** The data folder: the sign-in is `secrets/mcp-oauth/<server>.json` in it. */
  dataDir: string;
  server: McpHttpServer;
  /** Present for `kowalski mcp login`; absent for a connection, which cannot ask anyone to sign in. */
  login?: McpOAuthLogin;
  /** The clock of token expiry, ms since the epoch (default `Date.now`). */
  now?: () => number;
}

/** Is there a sign-in stored for `server` (at its current URL)? A damaged file is KW_ERR_MCP_OAUTH_FILE. */
export function hasSignIn(dataDir: string, server: McpHttpServer): boolean {
  return readSignIn(dataDir, server.name)?.url === server.url;
}

export class McpOAuthProvider implements OAuthClientProvider {
  private readonly dataDir: string;
  private readonly server: McpHttpServer;
  private readonly login: McpOAuthLogin | undefined;
  private readonly now: () => number;
  /** The sign-in as last read or written, and the file version it came from. */
  private signIn: McpSignIn | undefined;
  private version: string | undefined;
  private refreshing: Promise<void> | undefined;
  /** The refresh token tokens() last handed out: a refusal of an older one is another process's rotation, not a revocation. */
  private served: string | undefined;

  constructor(options: McpOAuthProviderOptions) {
    this.dataDir = options.dataDir;
    this.server = options.server;
    this.login = options.login;
    this.now = options.now ?? Date.now;
    if (this.login !== undefined) {
      // A login starts afresh: a new client (its redirect port is new), new tokens.
      this.signIn = { format: 'kowalski-mcp-oauth', server: this.server.name, url: this.server.url, redirectUrl: this.login.redirectUrl };
    }
  }

  /** The file this provider reads and writes. */
  get file(): string {
    return signInFile(this.dataDir, this.server.name);
  }

  get redirectUrl(): string {
    return this.current().redirectUrl;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: CLIENT_NAME,
      redirect_uris: [this.redirectUrl],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      // A public client: PKCE, no secret (a CLI cannot keep one).
      token_endpoint_auth_method: 'none',
    };
  }

  state(): string {
    if (this.login === undefined) throw this.signInNeeded();
    return this.login.state;
  }

  clientInformation(): OAuthClientInformationMixed | undefined {
    return this.current().client as OAuthClientInformationMixed | undefined;
  }

  saveClientInformation(info: OAuthClientInformationMixed): void {
    this.update((s) => ({ ...s, client: { ...info } }));
  }

  /** The tokens, refreshed first when the access token is about to expire (a connection's provider only). */
  async tokens(): Promise<OAuthTokens | undefined> {
    const stored = this.current().tokens;
    if (stored !== undefined && this.login === undefined && this.due(stored)) {
      this.refreshing ??= this.refresh().finally(() => {
        this.refreshing = undefined;
      });
      await this.refreshing;
    }
    const tokens = this.current().tokens;
    this.served = tokens?.refresh_token;
    return asSdkTokens(tokens);
  }

  saveTokens(tokens: OAuthTokens): void {
    const kept = this.current().tokens;
    const stored: StoredTokens = { ...tokens };
    // A server that does not rotate refresh tokens sends none with a refreshed access token.
    if (stored.refresh_token === undefined && kept?.refresh_token !== undefined) stored.refresh_token = kept.refresh_token;
    if (tokens.expires_in !== undefined) stored.expires_at = this.now() + tokens.expires_in * 1000;
    this.update((s) => {
      const next: McpSignIn = { ...s, tokens: stored };
      delete next.codeVerifier;
      delete next.refusedAt;
      return next;
    }, true);
  }

  redirectToAuthorization(url: URL): void {
    if (this.login === undefined) throw this.signInNeeded();
    this.login.onAuthorizationUrl(url);
  }

  saveCodeVerifier(verifier: string): void {
    // Kept in memory only: it matters to the login under way, and to nothing after it.
    if (this.signIn !== undefined) this.signIn = { ...this.signIn, codeVerifier: verifier };
  }

  codeVerifier(): string {
    const verifier = this.current().codeVerifier;
    if (verifier === undefined) throw new KowalskiError('KW_ERR_MCP_LOGIN', `no sign-in to MCP server "${this.server.name}" is under way (no PKCE code verifier)`);
    return verifier;
  }

  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery'): void {
    // Another process (a server, `kowalski mcp check`) refreshed meanwhile and the server
    // rotated the refresh token: the file holds the new one, which the SDK's retry then uses.
    if (scope === 'tokens' && this.served !== undefined && this.rotatedElsewhere(this.served)) return;
    this.update((s) => {
      const next = { ...s };
      if (scope === 'all' || scope === 'client') delete next.client;
      if (scope === 'all' || scope === 'tokens') {
        // The SDK drops the tokens when the authorization server refused the refresh token (invalid_grant).
        if (next.tokens !== undefined) next.refusedAt = new Date(this.now()).toISOString();
        delete next.tokens;
      }
      if (scope === 'all' || scope === 'verifier') delete next.codeVerifier;
      if (scope === 'all' || scope === 'discovery') delete next.discovery;
      return next;
    });
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    this.update((s) => ({ ...s, discovery: JSON.parse(JSON.stringify(state)) as Record<string, unknown> }));
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    return this.current().discovery as OAuthDiscoveryState | undefined;
  }

  /** Should the access token be refreshed now? */
  private due(tokens: StoredTokens): boolean {
    if (tokens.expires_at === undefined || tokens.refresh_token === undefined) return false;
    const lifetime = (tokens.expires_in ?? 0) * 1000;
    const margin = Math.min(REFRESH_MARGIN_MS, REFRESH_MARGIN_SHARE * lifetime);
    return this.now() >= tokens.expires_at - margin;
  }

  /** Trade the refresh token for new tokens at the authorization server discovery found. */
  private async refresh(): Promise<void> {
    const signIn = this.current();
    const tokens = signIn.tokens;
    // Another process may have refreshed meanwhile (current() read its write).
    if (tokens?.refresh_token === undefined || !this.due(tokens)) return;
    const discovery = signIn.discovery as OAuthDiscoveryState | undefined;
    if (discovery?.authorizationServerUrl === undefined || signIn.client === undefined) return; // left to the transport's 401 handling
    const resource = discovery.resourceMetadata?.resource;
    let fresh: OAuthTokens;
    try {
      fresh = await refreshAuthorization(discovery.authorizationServerUrl, {
        metadata: discovery.authorizationServerMetadata,
        clientInformation: signIn.client as OAuthClientInformationMixed,
        refreshToken: tokens.refresh_token,
        ...(resource === undefined ? {} : { resource: new URL(resource) }),
      });
    } catch (err) {
      if (err instanceof InvalidGrantError) {
        if (this.rotatedElsewhere(tokens.refresh_token)) return;
        this.served = tokens.refresh_token;
        this.invalidateCredentials('tokens');
        throw this.signInNeeded();
      }
      // Refreshed early and the token still lasts: use it; the next request tries again.
      if (tokens.expires_at !== undefined && this.now() < tokens.expires_at) return;
      const what = err instanceof OAuthError ? `refused it (${err.message})` : `could not be reached (${messageOf(err)})`;
      throw new KowalskiError('KW_ERR_MCP_UNAVAILABLE',
        `MCP server "${this.server.name}": its access token has expired and the authorization server at ${discovery.authorizationServerUrl} ${what}; try again, or run \`kowalski mcp login ${this.server.name}\``, { cause: err });
    }
    this.saveTokens({ ...fresh, ...(tokens.issuer === undefined ? {} : { issuer: tokens.issuer }) });
  }

  /** Does the file (read again if it changed) hold another refresh token than `used`? */
  private rotatedElsewhere(used: string | undefined): boolean {
    if (this.login !== undefined) return false;
    const now = this.current().tokens?.refresh_token;
    return now !== undefined && now !== used;
  }

  /** Why a connection cannot go on without a person signing in. */
  private signInNeeded(): KowalskiError {
    const s = this.signIn;
    const why = s?.refusedAt !== undefined
      ? `its authorization server refused the stored sign-in (the refresh token was revoked or has expired, ${s.refusedAt})`
      : s?.tokens !== undefined
        ? 'it refused the stored access token and the refresh did not give a new one'
        : 'it asks for a sign-in and none is stored';
    return new KowalskiError('KW_ERR_MCP_SIGN_IN', `MCP server "${this.server.name}" at ${this.server.url}: ${why}: run \`kowalski mcp login ${this.server.name}\``, { where: { file: this.file } });
  }

  /** The sign-in, read again when the file changed since (a connection's provider). */
  private current(): McpSignIn {
    if (this.login === undefined) {
      const version = signInVersion(this.dataDir, this.server.name);
      if (version !== this.version || this.signIn === undefined) {
        const read = readSignIn(this.dataDir, this.server.name);
        this.version = version;
        // A file removed under a live connection: what was read stays until it is refused.
        if (read !== undefined) this.signIn = read;
      }
    }
    if (this.signIn === undefined) throw this.signInNeeded();
    return this.signIn;
  }

  /**
   * Change the sign-in. A connection's provider writes every change; a login's keeps them in
   * memory until `write` (its tokens arrived), so a login that fails leaves the file as it was.
   */
  private update(change: (s: McpSignIn) => McpSignIn, write = false): void {
    this.signIn = change(this.current());
    if (this.login !== undefined && !write) return;
    const { codeVerifier: _verifier, ...kept } = this.signIn;
    writeSignIn(this.dataDir, kept);
    this.version = signInVersion(this.dataDir, this.server.name);
  }
}

/** Stored tokens as the SDK takes them (without our expires_at). */
function asSdkTokens(stored: StoredTokens | undefined): OAuthTokens | undefined {
  if (stored === undefined) return undefined;
  const { expires_at: _at, ...tokens } = stored;
  return tokens;
}
