/**
 * Signing in to an MCP server reached over HTTP: the OAuth authorization-code flow with
 * PKCE the MCP specification describes, through the SDK's `auth()`. It discovers the
 * authorization server (protected-resource metadata, then the server's own), registers a
 * client dynamically, and gives the authorization page's address; the caller sends a
 * person there and hands back what the redirect brought (`finish`), whose `state` is
 * checked before the code is traded for tokens. Where the redirect lands is the caller's:
 * a loopback server of `kowalski mcp login`.
 */
import { randomBytes } from 'node:crypto';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { OAuthError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { KowalskiError, messageOf } from '../../core/index.js';
import type { McpHttpServer } from './config.js';
import { McpOAuthProvider } from './oauth-provider.js';

export interface SignInOptions {
  /** The data folder: the sign-in is written to `secrets/mcp-oauth/<server>.json` there. */
  dataDir: string;
  server: McpHttpServer;
  /** Where the authorization server sends the browser back (registered with the client). */
  redirectUrl: string;
}

export interface SignInFlow {
  /** The authorization page to send a person to. */
  authorizationUrl: URL;
  /** The file the sign-in is written to once finished. */
  file: string;
  /** Check the redirect's query (`state`, then `code` or `error`) and trade the code for tokens, which are then stored. */
  finish(query: URLSearchParams): Promise<void>;
}

function failed(server: McpHttpServer, what: string, err?: unknown): KowalskiError {
  if (err instanceof KowalskiError) return err;
  const detail = err === undefined ? '' : `: ${err instanceof OAuthError ? `${(err.constructor as typeof OAuthError).errorCode}: ${err.message}` : messageOf(err)}`;
  return new KowalskiError('KW_ERR_MCP_LOGIN', `signing in to MCP server "${server.name}" at ${server.url} failed ${what}${detail}`, err === undefined ? {} : { cause: err });
}

/** Discover, register and build the authorization page's address; nothing is stored until `finish` succeeds. */
export async function startSignIn(options: SignInOptions): Promise<SignInFlow> {
  const { server } = options;
  const state = randomBytes(24).toString('base64url');
  let authorizationUrl: URL | undefined;
  const provider = new McpOAuthProvider({
    dataDir: options.dataDir,
    server,
    login: { redirectUrl: options.redirectUrl, state, onAuthorizationUrl: (url) => { authorizationUrl = url; } },
  });
  try {
    await auth(provider, { serverUrl: server.url });
  } catch (err) {
    throw failed(server, 'before the authorization page (discovery or client registration)', err);
  }
  if (authorizationUrl === undefined) throw failed(server, 'before the authorization page: the SDK gave no address to sign in at');
  const url = authorizationUrl;
  let finished = false;
  return {
    authorizationUrl: url,
    file: provider.file,
    async finish(query) {
      if (finished) throw failed(server, 'at the callback: this sign-in has been finished already');
      if (query.get('state') !== state) throw failed(server, 'at the callback: its state does not match the one sent (a redirect that is not the answer to this sign-in)');
      finished = true;
      const error = query.get('error');
      if (error !== null) {
        const description = query.get('error_description');
        throw failed(server, `at the authorization server, which answered ${error}${description === null ? '' : `: ${description}`}`);
      }
      const code = query.get('code');
      if (code === null || code === '') throw failed(server, 'at the callback: it brought no code');
      try {
        const result = await auth(provider, { serverUrl: server.url, authorizationCode: code });
        if (result !== 'AUTHORIZED') throw failed(server, 'trading the code for tokens: the server did not authorize');
      } catch (err) {
        throw failed(server, 'trading the code for tokens', err);
      }
    },
  };
}
