/**
 * An MCP server's stored sign-in (agents/mcp/oauth-store.ts): a JSON round trip, 0600 in
 * 0700 folders, and a file that is damaged or not one kowalski wrote gives
 * KW_ERR_MCP_OAUTH_FILE naming it; the provider (oauth-provider.ts) refreshes only when
 * less than min(60 s, 10 % of the lifetime) remains.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import type { McpHttpServer } from '../../agents/index.js';
import { McpOAuthProvider } from '../../agents/mcp/oauth-provider.js';
import { readSignIn, signInFile, writeSignIn } from '../../agents/mcp/oauth-store.js';
import type { McpSignIn } from '../../agents/mcp/oauth-store.js';
import { KowalskiError } from '../../core/index.js';
import { tempDir } from '../../testkit/tmp.js';

const SIGN_IN: McpSignIn = {
  format: 'kowalski-mcp-oauth',
  server: 'remote',
  url: 'http://127.0.0.1:9/mcp',
  redirectUrl: 'http://127.0.0.1:4000/callback',
  client: { client_id: 'c-1', redirect_uris: ['http://127.0.0.1:4000/callback'], issuer: 'http://127.0.0.1:9/' },
  tokens: { access_token: 'a-1', token_type: 'Bearer', refresh_token: 'r-1', expires_in: 3600, expires_at: 1_000_000, issuer: 'http://127.0.0.1:9/' },
  discovery: { authorizationServerUrl: 'http://127.0.0.1:9/' },
};

function failsWithFile(fn: () => unknown, file: string, why: RegExp): void {
  assert.throws(fn, (err: unknown) => {
    assert.ok(err instanceof KowalskiError);
    assert.equal(err.code, 'KW_ERR_MCP_OAUTH_FILE');
    assert.ok(err.message.includes(file), err.message);
    assert.match(err.message, why);
    assert.match(err.message, /kowalski mcp login remote/);
    return true;
  });
}

test('a sign-in makes the JSON round trip, 0600 in 0700 folders; none is undefined', (t) => {
  const dir = tempDir(t, 'kw-oauth-store-');
  assert.equal(readSignIn(dir, 'remote'), undefined);
  writeSignIn(dir, SIGN_IN);
  assert.deepEqual(readSignIn(dir, 'remote'), SIGN_IN);
  const file = signInFile(dir, 'remote');
  assert.equal(file, path.join(dir, 'secrets', 'mcp-oauth', 'remote.json'));
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.equal(fs.statSync(path.dirname(file)).mode & 0o777, 0o700);
  assert.equal(fs.statSync(path.join(dir, 'secrets')).mode & 0o777, 0o700);
  assert.deepEqual(fs.readdirSync(path.dirname(file)), ['remote.json'], 'no temporary file left beside it');
});

test('a damaged file, or one that is not a sign-in of that server, is KW_ERR_MCP_OAUTH_FILE naming it', (t) => {
  const dir = tempDir(t, 'kw-oauth-store-');
  writeSignIn(dir, SIGN_IN);
  const file = signInFile(dir, 'remote');
  fs.writeFileSync(file, '{"format": "kowalski-mcp-oauth", "server": ');
  failsWithFile(() => readSignIn(dir, 'remote'), file, /is not JSON/);
  fs.writeFileSync(file, JSON.stringify({ ...SIGN_IN, server: 'other' }));
  failsWithFile(() => readSignIn(dir, 'remote'), file, /the sign-in of "other", not of "remote"/);
  fs.writeFileSync(file, JSON.stringify({ ...SIGN_IN, tokens: { token_type: 'Bearer' } }));
  failsWithFile(() => readSignIn(dir, 'remote'), file, /"tokens" lacks access_token/);
  fs.writeFileSync(file, '[]');
  failsWithFile(() => readSignIn(dir, 'remote'), file, /does not hold a JSON object/);
});

test('the access token is refreshed only when less than min(60 s, 10 % of its lifetime) remains; a refusal names kowalski mcp login', async (t) => {
  const dir = tempDir(t, 'kw-oauth-store-');
  // The authorization server's token endpoint: counts the refreshes asked for, answers `answer`.
  let asked = 0;
  let answer: { status: number; body: unknown } = { status: 503, body: { error: 'temporarily_unavailable' } };
  const as = http.createServer((req, res) => {
    if (req.url === '/token') asked++;
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(JSON.stringify(answer.body));
  });
  as.listen(0, '127.0.0.1');
  await once(as, 'listening');
  t.after(() => new Promise((resolve) => as.close(resolve)));
  const issuer = `http://127.0.0.1:${(as.address() as AddressInfo).port}/`;
  const server: McpHttpServer = { name: 'remote', transport: 'http', url: SIGN_IN.url, timeoutMs: 1000, connectTimeoutMs: 1000 };
  const tokensAt = async (now: number, expiresIn: number): Promise<string | undefined> => {
    writeSignIn(dir, { ...SIGN_IN, discovery: { authorizationServerUrl: issuer }, tokens: { ...SIGN_IN.tokens!, expires_in: expiresIn, expires_at: 1_000_000 } });
    return (await new McpOAuthProvider({ dataDir: dir, server, now: () => now }).tokens())?.access_token;
  };
  const refreshedAt = async (now: number, expiresIn: number): Promise<boolean> => {
    const before = asked;
    // The server is down (503) while the token still lasts: the token is used as it is.
    assert.equal(await tokensAt(now, expiresIn), 'a-1');
    return asked > before;
  };
  // An hour's token: 60 s before expiry; a 10 s token: 1 s before.
  assert.equal(await refreshedAt(1_000_000 - 60_001, 3600), false);
  assert.equal(await refreshedAt(1_000_000 - 60_000, 3600), true);
  assert.equal(await refreshedAt(1_000_000 - 1_001, 10), false);
  assert.equal(await refreshedAt(1_000_000 - 1_000, 10), true);

  // Expired and the server is down: unavailable, said so.
  await assert.rejects(tokensAt(1_000_001, 10), (err: KowalskiError) => err.code === 'KW_ERR_MCP_UNAVAILABLE' && /its access token has expired/.test(err.message));
  // Refused (invalid_grant): a sign-in is needed; the tokens are dropped and the refusal kept.
  answer = { status: 400, body: { error: 'invalid_grant', error_description: 'revoked' } };
  await assert.rejects(tokensAt(1_000_001, 10), (err: KowalskiError) => {
    assert.equal(err.code, 'KW_ERR_MCP_SIGN_IN');
    assert.match(err.message, /MCP server "remote" at http:\/\/127\.0\.0\.1:9\/mcp: its authorization server refused the stored sign-in .*: run `kowalski mcp login remote`/);
    return true;
  });
  const after = readSignIn(dir, 'remote');
  assert.equal(after?.tokens, undefined);
  assert.match(after?.refusedAt ?? '', /^\d{4}-/);
  // A new token is stored with when it expires.
  answer = { status: 200, body: { access_token: 'a-2', token_type: 'Bearer', expires_in: 10, refresh_token: 'r-2' } };
  assert.equal(await tokensAt(1_000_001, 10), 'a-2');
  assert.deepEqual({ ...readSignIn(dir, 'remote')?.tokens }, { access_token: 'a-2', token_type: 'Bearer', expires_in: 10, refresh_token: 'r-2', expires_at: 1_010_001, issuer: SIGN_IN.tokens!.issuer });
});
