/**
 * `kowalski mcp login <server>`: sign in to an MCP server reached over HTTP (OAuth with
 * PKCE and dynamic client registration, agents/mcp/oauth-login.ts). The browser comes back
 * to a one-time server on 127.0.0.1 at a random port; the sign-in is then kept 0600 in the
 * data folder (`secrets/mcp-oauth/<server>.json`), never in config.toml.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mcpServersFrom } from '../../agents/index.js';
import type { McpServerConfig } from '../../agents/index.js';
import { KowalskiError, messageOf } from '../../core/index.js';
import { dataPaths, loadConfig } from '../../engine/index.js';
import { EXIT, dataDir, reportError } from './common.js';
import { canOpenBrowser, openBrowser } from './open-browser.js';

/** How long a person has to sign in, ms. */
const LOGIN_LIMIT_MS = 5 * 60_000;
const CALLBACK_PATH = '/callback';

export interface McpLoginOptions {
  /** Commander's `--no-open`: false when given. */
  open?: boolean;
  json?: boolean;
}

function page(title: string, text: string): string {
  const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><meta charset="utf-8"><title>${esc(title)}</title><body style="font-family:sans-serif;max-width:40em;margin:4em auto"><h1>${esc(title)}</h1><p>${esc(text)}</p></body>\n`;
}

function serverNamed(name: string, file: string): McpServerConfig & { transport: 'http' } {
  const servers = mcpServersFrom(loadConfig(file).raw, file);
  const server = servers.find((s) => s.name === name);
  if (server === undefined) {
    const known = servers.map((s) => s.name);
    throw new KowalskiError('KW_ERR_USAGE', `no MCP server named "${name}" in ${file}${known.length === 0 ? ' (it configures none)' : `: it configures ${known.join(', ')}`}`, { where: { file } });
  }
  if (server.transport !== 'http') {
    throw new KowalskiError('KW_ERR_USAGE', `MCP server "${name}" in ${file} is started with a command (stdio): only a server reached at a url (Streamable HTTP) signs in`, { where: { file } });
  }
  return server;
}

export async function mcpLoginCommand(name: string, opts: McpLoginOptions): Promise<number> {
  const dir = dataDir();
  let server: McpServerConfig & { transport: 'http' };
  try {
    server = serverNamed(name, dataPaths(dir).config);
  } catch (err) {
    // An unknown server, a stdio one, a config.toml that does not parse: bad input.
    reportError(err, opts.json === true);
    return EXIT.usage;
  }
  const { startSignIn } = await import('../../agents/mcp/oauth-login.js');

  let settle: { resolve: () => void; reject: (err: unknown) => void } | undefined;
  const done = new Promise<void>((resolve, reject) => { settle = { resolve, reject }; });
  let flow: Awaited<ReturnType<typeof startSignIn>> | undefined;
  const callback = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method !== 'GET' || url.pathname !== CALLBACK_PATH || flow === undefined) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    flow.finish(url.searchParams).then(() => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(page('Signed in', `kowalski is signed in to the MCP server "${server.name}". You can close this tab.`));
      settle?.resolve();
    }, (err: unknown) => {
      res.writeHead(400, { 'content-type': 'text/html; charset=utf-8' }).end(page('Sign-in failed', messageOf(err)));
      settle?.reject(err);
    });
  });
  callback.listen(0, '127.0.0.1');
  await once(callback, 'listening');
  const timer = setTimeout(() => settle?.reject(new KowalskiError('KW_ERR_MCP_LOGIN', `nobody signed in to MCP server "${server.name}" within ${LOGIN_LIMIT_MS / 60_000} minutes: run \`kowalski mcp login ${server.name}\` again`)), LOGIN_LIMIT_MS);
  try {
    const redirectUrl = `http://127.0.0.1:${(callback.address() as AddressInfo).port}${CALLBACK_PATH}`;
    flow = await startSignIn({ dataDir: dir, server, redirectUrl });
    const address = flow.authorizationUrl.href;
    process.stderr.write(`To sign in to MCP server "${server.name}", open this address in a browser:\n  ${address}\nWaiting for the sign-in (${LOGIN_LIMIT_MS / 60_000} minutes at most; Ctrl-C gives up)…\n`);
    if (opts.open !== false && canOpenBrowser()) openBrowser(address);
    await done;
  } finally {
    clearTimeout(timer);
    callback.closeAllConnections();
    await new Promise((resolve) => callback.close(resolve));
  }
  if (opts.json === true) process.stdout.write(`${JSON.stringify({ server: server.name, url: server.url, signedIn: true, file: flow.file })}\n`);
  else process.stdout.write(`Signed in to MCP server "${server.name}". The sign-in is kept in ${flow.file} (0600), not in config.toml; \`kowalski mcp check\` uses it.\n`);
  return EXIT.ok;
}
