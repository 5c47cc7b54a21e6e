/**
 * `kowalski mcp login`, against an OAuth-protected MCP server built with the SDK's own
 * server-side auth (testkit/oauth-mcp.ts): a real child prints the authorization address,
 * the test follows it with plain HTTP (the server approves at once) back to the child's
 * loopback callback; the sign-in is kept 0600 in the data folder, not in config.toml.
 * `kowalski mcp check` then reaches the server; calls (made in this process, where one
 * takes less than the 3 s a token lasts) still work once the access token has expired
 * (refreshed before use) and after the server refused it (one refresh after a 401); once
 * the refresh token is revoked a call and `kowalski mcp check` fail with KW_ERR_MCP_SIGN_IN
 * naming `kowalski mcp login`.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import type { McpManager, Tool } from '../../agents/index.js';
import type { KowalskiError } from '../../core/index.js';
import { cleanups } from '../../testkit/cleanup.js';
import { cli, cliSandbox, outputOf, startCli, stdoutJson } from '../../testkit/cli.js';
import { startOAuthMcp } from '../../testkit/oauth-mcp.js';
import type { OAuthMcp } from '../../testkit/oauth-mcp.js';
import { waitFor } from '../../testkit/wait.js';
import { managerFor, toolNamed } from '../support/mcp.js';

const SERVER = 'srv';

interface CheckJson { ok: boolean; servers: { name: string; ok: boolean; tools: { name: string }[]; error?: { code: string; message: string } }[] }

async function setUp(t: TestContext, tokenSecs = 3): Promise<{ home: string; config: string; mcp: OAuthMcp }> {
  const { home } = cliSandbox(t);
  const mcp = await startOAuthMcp({ tokenSecs });
  cleanups(t)(() => mcp.close());
  fs.mkdirSync(home, { recursive: true, mode: 0o700 });
  const config = path.join(home, 'config.toml');
  fs.writeFileSync(config, `[[mcp.servers]]\nname = "${SERVER}"\nurl = "${mcp.url}"\nconnect_timeout_secs = 20\n\n[[mcp.servers]]\nname = "local"\ncommand = "kw-no-such-mcp-server"\n`);
  return { home, config, mcp };
}

/** Run `kowalski mcp login srv --no-open`, follow the address it prints, and wait for it to finish. */
async function login(home: string): Promise<{ stdout: string; address: string; callback: Response }> {
  const child = startCli(home, ['mcp', 'login', SERVER, '--no-open'], { limitMs: 30_000 });
  const line = await child.stderrLine(/^\s+http:\/\/127\.0\.0\.1:\d+\/authorize\?/);
  const address = line.trim();
  // The server's authorize page redirects to the child's loopback callback, which answers.
  const callback = await fetch(address, { redirect: 'follow', signal: AbortSignal.timeout(20_000) });
  const result = await child.exited;
  assert.equal(result.code, 0, outputOf(result));
  return { stdout: result.stdout, address, callback };
}

async function check(home: string): Promise<CheckJson['servers'][number]> {
  const r = await cli(home, ['mcp', 'check', '--json'], { limitMs: 30_000 });
  const found = stdoutJson<CheckJson>(r).servers.find((s) => s.name === SERVER);
  assert.ok(found !== undefined, outputOf(r));
  return found;
}

/** A manager of this process reaching `url` as server "srv", with the sign-ins of the data folder `home`. */
function managerOf(t: TestContext, home: string, url: string): McpManager {
  return managerFor(t, [{ name: SERVER, transport: 'http', url, timeoutMs: 20_000, connectTimeoutMs: 20_000 }], { dataDir: home });
}

async function call(tool: Tool): Promise<string> {
  return (await tool.call({}, { signal: AbortSignal.timeout(20_000) })).content;
}

function octal(file: string): string {
  return (fs.statSync(file).mode & 0o777).toString(8);
}

test('mcp login signs in with PKCE and dynamic registration; the sign-in is 0600, refreshed when expired and after a 401, and a revoked refresh token names kowalski mcp login', async (t) => {
  const { home, config, mcp } = await setUp(t);
  const configBefore = fs.readFileSync(config, 'utf8');

  // Before signing in: the 401 says how to sign in.
  const unsigned = managerOf(t, home, mcp.url);
  await assert.rejects(unsigned.tools([`${SERVER}.whoami`]), (err: KowalskiError) => {
    assert.equal(err.code, 'KW_ERR_MCP_UNAVAILABLE');
    assert.match(err.message, /refused us \(if it asks for a sign-in, run `kowalski mcp login srv`\): HTTP 401/);
    return true;
  });

  const { stdout, address, callback } = await login(home);
  const authorize = new URL(address);
  assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
  assert.ok((authorize.searchParams.get('state') ?? '').length >= 20, 'a state is sent');
  assert.match(authorize.searchParams.get('redirect_uri') ?? '', /^http:\/\/127\.0\.0\.1:\d+\/callback$/);
  assert.equal(callback.status, 200);
  assert.match(await callback.text(), /Signed in/);
  assert.deepEqual({ registrations: mcp.counts.registrations, codeExchanges: mcp.counts.codeExchanges }, { registrations: 1, codeExchanges: 1 });

  const file = path.join(home, 'secrets', 'mcp-oauth', `${SERVER}.json`);
  assert.ok(stdout.includes(`kept in ${file} (0600)`), stdout);
  assert.equal(octal(file), '600');
  assert.equal(octal(path.dirname(file)), '700');
  assert.equal(octal(path.join(home, 'secrets')), '700');
  const stored = JSON.parse(fs.readFileSync(file, 'utf8')) as { tokens: { access_token: string; refresh_token: string } };
  assert.equal(stored.tokens.access_token, mcp.accessTokens()[0]);
  // Nothing of the sign-in in config.toml, nor printed back.
  assert.equal(fs.readFileSync(config, 'utf8'), configBefore);
  assert.ok(!stdout.includes(stored.tokens.access_token) && !stdout.includes(stored.tokens.refresh_token));

  // Signed in: `kowalski mcp check` (a child) lists the tool.
  const first = await check(home);
  assert.equal(first.ok, true, JSON.stringify(first));
  assert.deepEqual(first.tools.map((x) => x.name), ['whoami']);

  // In this process, where a call takes less than the token lasts (3 s): a call works…
  const manager = managerOf(t, home, mcp.url);
  const whoami = await toolNamed(manager, `${SERVER}.whoami`);
  assert.match(await call(whoami), /^signed in as [0-9a-f-]{36}$/);

  // …and still does once the access token has expired: refreshed before the request, no 401.
  const expiresAt = (): number => (JSON.parse(fs.readFileSync(file, 'utf8')) as { tokens: { expires_at: number } }).tokens.expires_at;
  await waitFor(() => Date.now() > expiresAt(), 'the stored access token to expire', 10_000);
  let refreshes = mcp.counts.refreshes;
  const refused = mcp.counts.refused;
  assert.match(await call(whoami), /^signed in as /);
  assert.equal(mcp.counts.refreshes, refreshes + 1, 'the expired token was refreshed');
  assert.equal(mcp.counts.refused, refused, 'refreshed before use: no request was refused');
  assert.equal(octal(file), '600');

  // The server refuses a token the client still thinks valid: one refresh after the 401.
  refreshes = mcp.counts.refreshes;
  mcp.expireAccessTokens();
  assert.match(await call(whoami), /^signed in as /);
  assert.equal(mcp.counts.refused, refused + 1, 'the request was refused with 401 once');
  assert.equal(mcp.counts.refreshes, refreshes + 1, 'refreshed after the 401');

  // The refresh token is revoked: the call fails naming kowalski mcp login…
  mcp.revokeRefreshTokens();
  mcp.expireAccessTokens();
  await assert.rejects(call(whoami), (err: KowalskiError) => {
    assert.equal(err.code, 'KW_ERR_MCP_SIGN_IN', err.message);
    assert.match(err.message, /refused the stored sign-in .*run `kowalski mcp login srv`/);
    return true;
  });
  // …and so does `kowalski mcp check`, from the stored file.
  const text = await cli(home, ['mcp', 'check']);
  assert.equal(text.code, 1, outputOf(text));
  assert.match(text.stdout, /refused the stored sign-in .*run `kowalski mcp login srv` \[KW_ERR_MCP_SIGN_IN\]/s);

  // Signing in again mends it.
  await login(home);
  assert.equal((await check(home)).ok, true);
});

test('mcp login: an unknown or stdio server is bad usage naming config.toml; a damaged sign-in file is named', async (t) => {
  const { home, config } = await setUp(t);
  const unknown = await cli(home, ['mcp', 'login', 'nope', '--no-open']);
  assert.equal(unknown.code, 2, outputOf(unknown));
  assert.ok(unknown.stderr.includes(`no MCP server named "nope" in ${config}: it configures srv, local`), unknown.stderr);
  assert.match(unknown.stderr, /\[KW_ERR_USAGE\]/);
  const stdio = await cli(home, ['mcp', 'login', 'local', '--no-open']);
  assert.equal(stdio.code, 2, outputOf(stdio));
  assert.match(stdio.stderr, /started with a command \(stdio\)/);

  const file = path.join(home, 'secrets', 'mcp-oauth', `${SERVER}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '{"format": "kowalski-mcp-oauth", ', { mode: 0o600 });
  const damaged = await check(home);
  assert.equal(damaged.error?.code, 'KW_ERR_MCP_OAUTH_FILE');
  assert.ok(damaged.error?.message.includes(file), damaged.error?.message);
  assert.match(damaged.error?.message ?? '', /is not JSON.*kowalski mcp login srv/);
});

test('mcp login: a callback whose state does not match ends the login (KW_ERR_MCP_LOGIN, exit 1) and stores nothing', async (t) => {
  const { home, mcp } = await setUp(t);
  const child = startCli(home, ['mcp', 'login', SERVER, '--no-open', '--json'], { limitMs: 30_000 });
  const address = new URL((await child.stderrLine(/^\s+http:\/\/127\.0\.0\.1:\d+\/authorize\?/)).trim());
  const forged = new URL(address.searchParams.get('redirect_uri')!);
  forged.searchParams.set('code', 'stolen');
  forged.searchParams.set('state', 'forged');
  const answer = await fetch(forged, { signal: AbortSignal.timeout(20_000) });
  assert.equal(answer.status, 400);
  assert.match(await answer.text(), /Sign-in failed/);
  const result = await child.exited;
  assert.equal(result.code, 1, outputOf(result));
  const error = stdoutJson<{ error: { code: string; message: string } }>(result).error;
  assert.equal(error.code, 'KW_ERR_MCP_LOGIN');
  assert.match(error.message, /signing in to MCP server "srv" at .* failed at the callback: its state does not match/);
  assert.equal(fs.existsSync(path.join(home, 'secrets')), false, 'nothing stored');
  assert.equal(mcp.counts.codeExchanges, 0);
});
