/**
 * Setup's Sign in for an MCP server reached over HTTP, through the real API on 127.0.0.1,
 * against an OAuth-protected MCP server built with the SDK's own server-side auth
 * (testkit/oauth-mcp.ts): the POST answers the authorization address, whose redirect comes
 * back to the server's public callback; the sign-in is then stored 0600 and the status
 * says so (never the tokens), and a tool of the server answers with it. A callback with an
 * unknown state, a server that is not configured, a request without the token are refused.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { McpManager } from '../../agents/index.js';
import { buildApi } from '../../api/index.js';
import { createEngine } from '../../engine/index.js';
import { cleanups } from '../../testkit/cleanup.js';
import { startOAuthMcp } from '../../testkit/oauth-mcp.js';
import { tempDir } from '../../testkit/tmp.js';
import { listen } from '../support/api.js';
import { AUTH, TEST_TOKEN } from '../support/token.js';
import { testOwnCode } from '../../testkit/dist.js';

test("Setup's Sign in: the authorization address comes back to the server's callback; the sign-in is stored 0600 and used; strangers are refused", async (t) => {
  const mcp = await startOAuthMcp({ tokenSecs: 60 });
  cleanups(t)(() => mcp.close());
  const home = tempDir(t, 'kw-mcp-setup-');
  fs.writeFileSync(path.join(home, 'config.toml'), `[[mcp.servers]]\nname = "srv"\nurl = "${mcp.url}"\n\n[[mcp.servers]]\nname = "local"\ncommand = "node"\n`);
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  cleanups(t)(() => engine.close());
  const api = await buildApi(engine, { port: 0, token: TEST_TOKEN, onInternalError: (err) => t.diagnostic(`internal: ${String(err)}`) });
  cleanups(t)(() => api.app.close());
  const { base } = await listen(api);
  const get = async (p: string) => fetch(`${base}${p}`, { headers: AUTH });

  const before = await (await get('/api/setup/mcp')).json() as { servers: unknown[] };
  assert.deepEqual(before.servers, [{ name: 'srv', url: mcp.url, signedIn: false, refusedAt: null, problem: null }]);

  const started = await fetch(`${base}/api/setup/mcp/srv/sign-in`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: '{}' });
  assert.equal(started.status, 200, await started.clone().text());
  const { authorizationUrl } = await started.json() as { authorizationUrl: string };
  const address = new URL(authorizationUrl);
  assert.equal(address.searchParams.get('redirect_uri'), `${base}/api/mcp/oauth/callback`);
  assert.equal(address.searchParams.get('code_challenge_method'), 'S256');

  // The browser's part: the authorization page approves and redirects to the callback, which takes no API token.
  const landed = await fetch(authorizationUrl, { redirect: 'follow', signal: AbortSignal.timeout(20_000) });
  assert.equal(landed.status, 200);
  assert.match(await landed.text(), /Signed in.*MCP server &#34;srv&#34;/s);

  const file = path.join(home, 'secrets', 'mcp-oauth', 'srv.json');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  const status = await (await get('/api/setup/mcp')).text();
  assert.deepEqual(JSON.parse(status), { servers: [{ name: 'srv', url: mcp.url, signedIn: true, refusedAt: null, problem: null }] });
  const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as { tokens: { access_token: string; refresh_token: string } };
  assert.ok(!status.includes(stored.tokens.access_token) && !status.includes(stored.tokens.refresh_token), 'the tokens are never sent back');

  // The stored sign-in is what a connection of this data folder uses.
  const manager = new McpManager(engine.config.mcpServers.filter((s) => s.name === 'srv'), { dataDir: home });
  cleanups(t)(() => manager.close());
  const [whoami] = await manager.tools(['srv.whoami']);
  assert.match((await whoami!.call({}, { signal: AbortSignal.timeout(20_000) })).content, /^signed in as /);

  // The same callback again (its state is spent), a stranger's state: refused, nothing changed.
  const replay = await fetch(landed.url);
  assert.equal(replay.status, 400);
  assert.match(await replay.text(), /unknown or has expired/);
  assert.equal((await fetch(`${base}/api/mcp/oauth/callback?state=forged&code=x`)).status, 400);
  assert.equal(JSON.parse(fs.readFileSync(file, 'utf8')).tokens.access_token, stored.tokens.access_token);

  // Only configured HTTP servers, only with the token.
  const unknown = await fetch(`${base}/api/setup/mcp/local/sign-in`, { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: '{}' });
  assert.equal(unknown.status, 400);
  assert.equal(((await unknown.json()) as { error: { code: string } }).error.code, 'KW_ERR_BAD_REQUEST');
  assert.equal((await fetch(`${base}/api/setup/mcp`)).status, 401);
  assert.equal((await fetch(`${base}/api/setup/mcp/srv/sign-in`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 401);
});
