/**
 * The API's token on loopback (issue 38's critical finding): a local process that is not
 * the operator — here a child process with no token, as a plugin or an MCP server's child
 * would be — gets nothing from `kowalski serve` on 127.0.0.1: not a draft, not a run, not
 * the websocket. The token is made owner-only in the data folder, the CLI uses it without
 * being told, and no command a step runs is given it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { cleanups } from '../../testkit/cleanup.js';
import { cli, cliSandbox, outputOf, startCli, stdoutJson, verifyStep, writeHorde } from '../../testkit/cli.js';
import type { RunningCli } from '../../testkit/cli.js';

const SERVING = /^kowalski serving .* at (http:\/\/127\.0\.0\.1:\d+\/)/;

/** What a token-less local process gets: status and error code of each attempt, run in a child of its own. */
const INTRUDER = `
import crypto from 'node:crypto';
import http from 'node:http';
const base = process.argv[1];
const post = (p, body) => fetch(base + p, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const seen = {};
for (const [name, go] of Object.entries({
  health: () => fetch(base + 'api/health'),
  draft: () => post('api/rookery/drafts', {}),
  run: () => post('api/hordes/envdump/runs', { input: {} }),
  setup: () => fetch(base + 'api/setup'),
  codes: () => post('api/auth/codes', {}),
  guessedToken: () => fetch(base + 'api/runs', { headers: { authorization: 'Bearer ' + 'A'.repeat(43) } }),
  exchange: () => post('api/auth/exchange', { code: 'guessed-code-0000000000' }),
})) {
  const res = await go();
  seen[name] = [res.status, (await res.json()).error?.code ?? null];
}
seen.websocket = await new Promise((resolve) => {
  const req = http.request(base + 'api/ws', { headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': crypto.randomBytes(16).toString('base64'), 'sec-websocket-protocol': 'kowalski' } });
  req.on('upgrade', (_res, socket) => { socket.destroy(); resolve('open'); });
  req.on('response', (res) => { res.resume(); resolve(res.statusCode); });
  req.on('error', (err) => resolve(err.code));
  req.end();
});
process.stdout.write(JSON.stringify(seen));
`;

function intrude(base: string): Promise<Record<string, unknown>> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', INTRUDER, base], { stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH } });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  return new Promise((resolve, reject) => child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as Record<string, unknown>) : reject(new Error(`intruder exited ${code}: ${err}`)))));
}

test('on 127.0.0.1 a local process without the token gets nothing; the token is owner-only, the CLI uses it, and no step is given it', async (t) => {
  const defer = cleanups(t);
  const { root, home } = cliSandbox(t);
  const dump = path.join(root, 'env.txt');
  writeHorde(path.join(home, 'hordes', 'envdump'), 'id = "envdump"\npipeline = ["dump"]\nconfirm_commands = false', { dump: verifyStep(`env > ${dump}`) });
  const server: RunningCli = startCli(home, ['serve', '--no-open', '--port', '0'], { limitMs: 180_000 });
  defer(async () => {
    if (server.child.exitCode === null && server.child.signalCode === null) server.child.kill('SIGTERM');
    await server.exited;
  });
  const url = SERVING.exec(await server.stderrLine(SERVING))![1]!;
  assert.match(await server.stderrLine(/\?code=/), new RegExp(`^ {2}${url.replace(/[.?/]/g, '\\$&')}\\?code=[\\w-]{22}$`), 'serve prints a one-time sign-in link');

  const tokenFile = path.join(home, 'api-token');
  assert.equal(fs.statSync(tokenFile).mode & 0o777, 0o600);
  const token = fs.readFileSync(tokenFile, 'utf8').trim();
  assert.ok(token.length >= 32, token);

  assert.deepEqual(await intrude(url), {
    health: [401, 'KW_ERR_UNAUTHORIZED'],
    draft: [401, 'KW_ERR_UNAUTHORIZED'],
    run: [401, 'KW_ERR_UNAUTHORIZED'],
    setup: [401, 'KW_ERR_UNAUTHORIZED'],
    codes: [401, 'KW_ERR_UNAUTHORIZED'],
    guessedToken: [401, 'KW_ERR_UNAUTHORIZED'],
    exchange: [401, 'KW_ERR_LOGIN_CODE'],
    websocket: 401,
  });

  // The CLI reads the token from the data folder; the step's command gets none of it.
  const run = await cli(home, ['run', 'envdump', '--json']);
  assert.equal(run.code, 0, outputOf(run));
  assert.equal(stdoutJson<{ state: string }>(run).state, 'succeeded');
  const env = fs.readFileSync(dump, 'utf8');
  assert.ok(env.includes('PATH='), 'the dump is the step\'s environment');
  assert.equal(env.includes(token), false, 'no token in a step\'s environment');

  const health = await fetch(new URL('api/health', url), { headers: { authorization: `Bearer ${token}` } });
  assert.equal(health.status, 200);
  assert.equal((await health.json() as { auth: string }).auth, 'token');
  assert.equal((await fetch(new URL('/', url))).status, 200, 'the app itself loads without the token (it holds no data)');
});
