/**
 * Setup's MCP servers through the real API on 127.0.0.1: a stdio server (the reference
 * "everything" server, run with node) is added to a config.toml with comments, listed,
 * tested (its tools come back, `echo` among them) and removed; the comments and the other
 * sections stay. A name in use, bad input and an unknown server are refused with their
 * codes, naming the key. An http server (the same server over Streamable HTTP) is added and
 * tested too; one that refuses connections, a command that cannot start and a server that
 * asks for a sign-in answer their codes in the test's answer, an env value never among them.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { parse } from 'smol-toml';
import { buildApi } from '../../api/index.js';
import type { McpServerSetup, McpServerTest, McpServersSaved } from '../../contract/index.js';
import { createEngine } from '../../engine/index.js';
import { cleanups } from '../../testkit/cleanup.js';
import { freePort } from '../../testkit/free-port.js';
import { startOAuthMcp } from '../../testkit/oauth-mcp.js';
import { tempDir } from '../../testkit/tmp.js';
import { listen } from '../support/api.js';
import { EVERYTHING, startEverythingHttp } from '../support/mcp.js';
import { AUTH } from '../support/token.js';
import type { TestContext } from 'node:test';
import { testOwnCode } from '../../testkit/dist.js';

const CONFIG = `# my kowalski settings, by hand
[model]
default = "ollama:qwen2.5:7b" # the small one

# the servers of the team
[[mcp.servers]]
name = "first"
command = "node"
args = ["--version"]
# kept: a note about what follows

[tools]
root = "/tmp/kw-tools"
`;

async function start(t: TestContext, config: string) {
  const home = tempDir(t, 'kw-setup-mcp-');
  const file = path.join(home, 'config.toml');
  fs.writeFileSync(file, config);
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: home });
  cleanups(t)(() => engine.close());
  const api = await buildApi(engine, { port: 0, token: (await import('../support/token.js')).TEST_TOKEN, onInternalError: (err) => t.diagnostic(`internal: ${String(err)}`) });
  cleanups(t)(() => api.app.close());
  const { base } = await listen(api);
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${base}${p}`, {
      method, headers: body === undefined ? AUTH : { ...AUTH, 'content-type': 'application/json' }, body: body === undefined ? null : JSON.stringify(body), signal: AbortSignal.timeout(60_000),
    });
    return { status: res.status, json: await res.json() as any };
  };
  return { home, file, engine, call };
}

test('Setup adds a stdio MCP server to config.toml keeping its comments, tests it (its tools listed), refuses clashes and bad input, and removes it', async (t) => {
  const { file, engine, call } = await start(t, CONFIG);

  const listed = await call('GET', '/api/setup/mcp/servers');
  assert.equal(listed.status, 200);
  assert.deepEqual(listed.json.servers, [{ name: 'first', transport: 'stdio', command: 'node', args: ['--version'], url: null, tokenSet: false, envNames: [], cwd: null, timeoutSecs: 60, connectTimeoutSecs: 20 }] satisfies McpServerSetup[]);

  const added = await call('POST', '/api/setup/mcp/servers', { name: 'everything', transport: 'stdio', command: process.execPath, args: [EVERYTHING] });
  assert.equal(added.status, 200, JSON.stringify(added.json));
  const saved = added.json as McpServersSaved;
  assert.equal(saved.written.comments, 'kept');
  assert.deepEqual(saved.servers.map((s) => s.name), ['first', 'everything']);
  const text = fs.readFileSync(file, 'utf8');
  for (const kept of ['# my kowalski settings, by hand', 'default = "ollama:qwen2.5:7b" # the small one', '# the servers of the team', '# kept: a note about what follows']) {
    assert.ok(text.includes(kept), `config.toml still holds ${JSON.stringify(kept)}:\n${text}`);
  }
  assert.ok(text.includes(`args = ["--version"]\n\n[[mcp.servers]]\nname = "everything"\ncommand = ${JSON.stringify(process.execPath)}\nargs = [${JSON.stringify(EVERYTHING)}]\n# kept`), text);
  assert.equal((parse(text) as { tools: { root: string } }).tools.root, '/tmp/kw-tools');
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  assert.deepEqual(engine.config.mcpServers.map((s) => s.name), ['first', 'everything'], 'the config was reloaded');

  const tested = await call('POST', '/api/setup/mcp/servers/everything/test', {});
  assert.equal(tested.status, 200, JSON.stringify(tested.json));
  const result = tested.json as McpServerTest;
  assert.equal(result.ok, true, JSON.stringify(result.error));
  assert.equal(result.error, null);
  const echo = result.tools.find((tool) => tool.name === 'echo');
  assert.ok(echo !== undefined && echo.description.length > 0, `echo is listed with its description: ${JSON.stringify(result.tools.map((x) => x.name))}`);

  // The same name again: refused, naming the file and the key; nothing written.
  const before = fs.readFileSync(file, 'utf8');
  const clash = await call('POST', '/api/setup/mcp/servers', { name: 'everything', transport: 'http', url: 'http://127.0.0.1:1/mcp' });
  assert.equal(clash.status, 409);
  assert.equal(clash.json.error.code, 'KW_ERR_MCP_SERVER_EXISTS');
  assert.equal(clash.json.error.message, `${file}: mcp.servers[1].name: a server named "everything" is there already; choose another name or remove that one first`);
  for (const [body, code, field] of [
    [{ name: 'Bad Name', transport: 'stdio', command: 'node' }, 'KW_ERR_BAD_REQUEST', /^name: must be lower-case letters/],
    [{ name: 'x', transport: 'stdio' }, 'KW_ERR_BAD_REQUEST', /^command: is required for transport "stdio"/],
    [{ name: 'x', transport: 'http', url: 'ftp://example.com' }, 'KW_ERR_BAD_REQUEST', /^url: /],
    [{ name: 'x', transport: 'http', url: 'http://127.0.0.1/mcp', command: 'node' }, 'KW_ERR_BAD_REQUEST', /^command: applies to a stdio server only/],
    [{ name: 'x', transport: 'carrier-pigeon', command: 'node' }, 'KW_ERR_BAD_REQUEST', /^body\/transport /],
    [{ name: 'x', transport: 'stdio', command: 'node', token: 'secret' }, 'KW_ERR_BAD_REQUEST', /^token: applies to an http server only/],
    [{ name: 'x', transport: 'http', url: 'http://127.0.0.1/mcp', env: { A: 'b' } }, 'KW_ERR_BAD_REQUEST', /^env: applies to a stdio server only/],
    [{ name: 'x', transport: 'stdio', command: 'node', env: { 'NOT-A-NAME': 'b' } }, 'KW_ERR_BAD_REQUEST', /^env\.NOT-A-NAME: a variable's name is letters/],
    [{ name: 'x', transport: 'stdio', command: 'node', timeoutSecs: 100_000 }, 'KW_ERR_BAD_REQUEST', /^timeoutSecs: must be a number of seconds > 0 and ≤ 86400/],
    [{ name: 'x', transport: 'stdio', command: 'node', connectTimeoutSecs: 0 }, 'KW_ERR_BAD_REQUEST', /^body\/connectTimeoutSecs must be > 0/],
    [{ name: 'x', transport: 'stdio', command: 'node', shell: true }, 'KW_ERR_BAD_REQUEST', /^body\/shell is not a known field/],
  ] as const) {
    const refused = await call('POST', '/api/setup/mcp/servers', body);
    assert.equal(refused.status, 400, JSON.stringify(body));
    assert.equal(refused.json.error.code, code);
    assert.match(refused.json.error.message, field);
  }
  assert.equal(fs.readFileSync(file, 'utf8'), before, 'a refused add writes nothing');

  const unknown = await call('POST', '/api/setup/mcp/servers/nobody/test', {});
  assert.equal(unknown.status, 404);
  assert.equal(unknown.json.error.code, 'KW_ERR_MCP_SERVER_NOT_FOUND');
  assert.match(unknown.json.error.message, /config\.toml: mcp\.servers: no server is named "nobody" \(there are: first, everything\)$/);
  assert.equal((await call('DELETE', '/api/setup/mcp/servers/nobody')).json.error.code, 'KW_ERR_MCP_SERVER_NOT_FOUND');

  const removed = await call('DELETE', '/api/setup/mcp/servers/everything');
  assert.equal(removed.status, 200, JSON.stringify(removed.json));
  assert.deepEqual((removed.json as McpServersSaved).servers.map((s) => s.name), ['first']);
  assert.equal(removed.json.written.comments, 'kept');
  assert.equal(fs.readFileSync(file, 'utf8'), CONFIG, 'removing what was added gives the file back as it was');
  assert.deepEqual(engine.config.mcpServers.map((s) => s.name), ['first']);

  // Removing the first keeps the comments around it.
  await call('DELETE', '/api/setup/mcp/servers/first');
  const last = fs.readFileSync(file, 'utf8');
  assert.equal(last, CONFIG.replace('[[mcp.servers]]\nname = "first"\ncommand = "node"\nargs = ["--version"]\n', ''));
  assert.deepEqual((await call('GET', '/api/setup/mcp/servers')).json.servers, []);
});

test('Setup adds an http MCP server and tests it; a server that refuses connections is a coded error in words', async (t) => {
  const url = await startEverythingHttp(t);
  const { file, call } = await start(t, '# empty but for this\n');
  const added = await call('POST', '/api/setup/mcp/servers', { name: 'remote', transport: 'http', url });
  assert.equal(added.status, 200, JSON.stringify(added.json));
  assert.deepEqual(added.json.servers, [{ name: 'remote', transport: 'http', command: null, args: [], url, tokenSet: false, envNames: [], cwd: null, timeoutSecs: 60, connectTimeoutSecs: 20 }]);
  assert.equal(fs.readFileSync(file, 'utf8'), `# empty but for this\n\n[[mcp.servers]]\nname = "remote"\nurl = "${url}"\n`);
  const tested = (await call('POST', '/api/setup/mcp/servers/remote/test', {})).json as McpServerTest;
  assert.equal(tested.ok, true, JSON.stringify(tested.error));
  assert.ok(tested.tools.some((tool) => tool.name === 'echo'));
  // The sign-in list of Setup sees it too (it reads the reloaded config).
  assert.deepEqual((await call('GET', '/api/setup/mcp')).json.servers.map((s: { name: string }) => s.name), ['remote']);

  const closed = `http://127.0.0.1:${await freePort()}/mcp`;
  assert.equal((await call('POST', '/api/setup/mcp/servers', { name: 'gone', transport: 'http', url: closed })).status, 200);
  const refused = (await call('POST', '/api/setup/mcp/servers/gone/test', {})).json as McpServerTest;
  assert.equal(refused.ok, false);
  assert.deepEqual(refused.tools, []);
  assert.equal(refused.error?.code, 'KW_ERR_MCP_UNAVAILABLE');
  assert.match(refused.error?.message ?? '', /gone/);
  t.diagnostic(refused.error?.message ?? '');
});

test("Setup's test of a server that cannot start, or asks for a sign-in, answers the coded error in words; an env value in its stderr is never sent", async (t) => {
  const oauth = await startOAuthMcp({ tokenSecs: 60 });
  cleanups(t)(() => oauth.close());
  const missing = path.join(tempDir(t, 'kw-nothing-'), 'no-such-program');
  // A server that prints its key and exits: the key is config.toml's env, so a secret.
  const config = `[[mcp.servers]]\nname = "leaky"\ncommand = ${JSON.stringify(process.execPath)}\nargs = ["-e", "console.error('key is ' + process.env.LEAKY_KEY); process.exit(3)"]\nenv = { LEAKY_KEY = "sk-very-secret-value-123" }\n`;
  const { call } = await start(t, config);
  assert.deepEqual((await call('GET', '/api/setup/mcp/servers')).json.servers[0].envNames, ['LEAKY_KEY']);
  assert.ok(!JSON.stringify((await call('GET', '/api/setup/mcp/servers')).json).includes('sk-very-secret'), 'never an env value');

  const leaky = (await call('POST', '/api/setup/mcp/servers/leaky/test', {})).json as McpServerTest;
  assert.equal(leaky.ok, false);
  assert.equal(leaky.error?.code, 'KW_ERR_MCP_UNAVAILABLE');
  assert.match(leaky.error?.message ?? '', /key is/);
  assert.doesNotMatch(leaky.error?.message ?? '', /sk-very-secret/);

  assert.equal((await call('POST', '/api/setup/mcp/servers', { name: 'missing', transport: 'stdio', command: missing })).status, 200);
  const notStarted = (await call('POST', '/api/setup/mcp/servers/missing/test', {})).json as McpServerTest;
  assert.equal(notStarted.ok, false);
  assert.equal(notStarted.error?.code, 'KW_ERR_MCP_UNAVAILABLE');
  assert.ok(notStarted.error?.message.includes('missing'), notStarted.error?.message);
  t.diagnostic(notStarted.error?.message ?? '');

  assert.equal((await call('POST', '/api/setup/mcp/servers', { name: 'locked', transport: 'http', url: oauth.url })).status, 200);
  const locked = (await call('POST', '/api/setup/mcp/servers/locked/test', {})).json as McpServerTest;
  assert.equal(locked.ok, false);
  assert.equal(locked.error?.code, 'KW_ERR_MCP_SIGN_IN', locked.error?.message);
  assert.equal(locked.error?.message, `MCP server "locked" at ${oauth.url} answered HTTP 401: it asks for a sign-in that kowalski does not have. Use its Sign in button in Setup (MCP servers that sign in), or run \`kowalski mcp login locked\``);
});

test('Setup adds a server with its folder, variables and limits, then edits it in place: a token and env values are kept unless replaced and never shown back; a switch of transport drops what no longer applies', async (t) => {
  const { file, engine, call } = await start(t, CONFIG);
  const folder = tempDir(t, 'kw-mcp-cwd-');
  const added = await call('POST', '/api/setup/mcp/servers', {
    name: 'tools', transport: 'stdio', command: 'npx', args: ['-y', 'some-server'], cwd: folder, env: { API_KEY: 'sk-kept-secret-1', LOG_LEVEL: 'warn' }, timeoutSecs: 120, connectTimeoutSecs: 45,
  });
  assert.equal(added.status, 200, JSON.stringify(added.json));
  const listed = (added.json as McpServersSaved).servers.find((s) => s.name === 'tools');
  assert.deepEqual(listed, { name: 'tools', transport: 'stdio', command: 'npx', args: ['-y', 'some-server'], url: null, tokenSet: false, envNames: ['API_KEY', 'LOG_LEVEL'], cwd: folder, timeoutSecs: 120, connectTimeoutSecs: 45 });
  assert.ok(!JSON.stringify(added.json).includes('sk-kept-secret-1'), 'an env value is never sent back');
  const engineView = engine.config.mcpServers.find((s) => s.name === 'tools');
  assert.ok(engineView?.transport === 'stdio');
  assert.deepEqual([engineView.env, engineView.cwd, engineView.timeoutMs, engineView.connectTimeoutMs], [{ API_KEY: 'sk-kept-secret-1', LOG_LEVEL: 'warn' }, folder, 120_000, 45_000], 'the reloaded config holds them');

  // An edit that sends the variables to keep (null: keep the value) and one new, a new argument, default limits.
  const edited = await call('PUT', '/api/setup/mcp/servers/tools', { transport: 'stdio', command: 'npx', args: ['-y', 'some-server', '--fast'], env: { API_KEY: null, EXTRA: 'x y' } });
  assert.equal(edited.status, 200, JSON.stringify(edited.json));
  assert.equal(edited.json.written.comments, 'kept');
  const text = fs.readFileSync(file, 'utf8');
  assert.ok(text.includes('args = ["--version"]\n\n[[mcp.servers]]\nname = "tools"\ncommand = "npx"\nargs = ["-y", "some-server", "--fast"]\nenv = { API_KEY = "sk-kept-secret-1", EXTRA = "x y" }\n# kept: a note about what follows'), text);
  assert.ok(text.startsWith('# my kowalski settings, by hand\n'));
  const after = engine.config.mcpServers.find((s) => s.name === 'tools');
  assert.ok(after?.transport === 'stdio');
  assert.deepEqual([after.env, after.cwd, after.timeoutMs], [{ API_KEY: 'sk-kept-secret-1', EXTRA: 'x y' }, undefined, 60_000]);
  assert.deepEqual(engine.config.mcpServers.map((s) => s.name), ['first', 'tools'], 'in its place');

  // A variable to keep that it does not have: refused naming it, nothing written.
  const before = fs.readFileSync(file, 'utf8');
  const missing = await call('PUT', '/api/setup/mcp/servers/tools', { transport: 'stdio', command: 'npx', env: { NOPE: null } });
  assert.equal(missing.status, 400);
  assert.equal(missing.json.error.code, 'KW_ERR_BAD_REQUEST');
  assert.match(missing.json.error.message, /^env\.NOPE: has no value to keep: "tools" does not set NOPE yet/);
  assert.equal(fs.readFileSync(file, 'utf8'), before);
  assert.equal((await call('PUT', '/api/setup/mcp/servers/nobody', { transport: 'stdio', command: 'x' })).json.error.code, 'KW_ERR_MCP_SERVER_NOT_FOUND');

  // To http with a token: its variables go; an edit without the token keeps it; null removes it.
  assert.equal((await call('PUT', '/api/setup/mcp/servers/tools', { transport: 'http', url: 'http://127.0.0.1:9/mcp', token: 'tok-secret-2' })).status, 200);
  assert.doesNotMatch(fs.readFileSync(file, 'utf8'), /API_KEY|some-server/);
  const http = await call('PUT', '/api/setup/mcp/servers/tools', { transport: 'http', url: 'http://127.0.0.1:10/mcp', timeoutSecs: 5 });
  assert.equal(http.status, 200, JSON.stringify(http.json));
  const shown = (http.json as McpServersSaved).servers.find((s) => s.name === 'tools');
  assert.deepEqual([shown?.url, shown?.tokenSet, shown?.timeoutSecs], ['http://127.0.0.1:10/mcp', true, 5]);
  assert.ok(!JSON.stringify(http.json).includes('tok-secret-2'), 'a token is never sent back');
  const withToken = engine.config.mcpServers.find((s) => s.name === 'tools');
  assert.equal(withToken?.transport === 'http' ? withToken.token : null, 'tok-secret-2', 'kept');
  assert.equal((await call('PUT', '/api/setup/mcp/servers/tools', { transport: 'http', url: 'http://127.0.0.1:10/mcp', token: null })).json.servers[1].tokenSet, false);
  assert.doesNotMatch(fs.readFileSync(file, 'utf8'), /tok-secret-2/);
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
});
