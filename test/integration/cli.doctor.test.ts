/**
 * `kowalski doctor`: every failing check provoked once — an old Node and a full disk
 * through the check functions (the values injected), the rest through the real CLI: a data
 * folder its owner cannot use, a damaged database, an unreachable model, an MCP server that
 * does not start, a web search that does not answer, a taken port, a bad config.toml, and a
 * model the provider does not have. A healthy folder exits 0; a misspelt key there is a warning.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { checkDisk, checkNode, checkPluginSandbox } from '../../bin/doctor/index.js';
import type { Check } from '../../bin/doctor/index.js';
import { checkModel } from '../../bin/doctor/model.js';
import { DEFAULT_CONFIG } from '../../engine/index.js';
import { findBwrap } from '../../engine/plugins/runner/index.js';
import { cli, outputOf, startCli, stdoutJson } from '../../testkit/cli.js';
import { waitFor } from '../../testkit/wait.js';
import { AUTH, writeTestToken } from '../support/token.js';
import { cleanups } from '../../testkit/cleanup.js';
import { testEngine } from '../support/engine.js';
import { tempDir } from '../../testkit/tmp.js';

/** A port nothing listens on (taken, then released). */
async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

/** A fake Ollama that lists `models`. */
async function fakeOllama(t: TestContext, models: string[]): Promise<string> {
  const server = http.createServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(req.url === '/api/tags' ? JSON.stringify({ models: models.map((name) => ({ name })) }) : '{}');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups(t)(() => new Promise((r) => server.close(r)));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const byName = (checks: Check[]): Map<string, Check> => new Map(checks.map((c) => [c.name, c]));

test('an old Node and a nearly full disk fail, with the fix', () => {
  const old = checkNode('20.18.3');
  assert.equal(old.status, 'fail');
  assert.match(old.fix ?? '', /Node 20\.19 or newer/);
  assert.equal(checkNode('20.19.0').status, 'ok');
  assert.equal(checkNode('22.1.0').status, 'ok');
  const full = checkDisk('/tmp', { warnBytes: Number.MAX_SAFE_INTEGER, failBytes: Number.MAX_SAFE_INTEGER });
  assert.equal(full.status, 'fail');
  assert.match(full.fix ?? '', /free some space/);
  assert.equal(checkDisk('/tmp', { warnBytes: 1, failBytes: 1 }).status, 'ok');
});

test('no bubblewrap: a warning that plugins are confined by Node only, with the fix; a bwrap that fails says how it failed', async (t) => {
  for (const absent of [await checkPluginSandbox({ bwrap: null }), await checkPluginSandbox({ bwrap: '/nonexistent/bwrap' })]) {
    assert.equal(absent.status, 'warn');
    assert.match(absent.detail, /^plugins are confined by Node's permission model only: they can open sockets and send signals \(bubblewrap (is turned off for this engine|is not at \/nonexistent\/bwrap)\)$/);
    assert.match(absent.fix ?? '', /^apt-get install bubblewrap/);
  }
  const fake = path.join(tempDir(t, 'kw-doc-bwrap-'), 'bwrap');
  fs.writeFileSync(fake, '#!/bin/sh\necho "bwrap: setting up uid map: Permission denied" >&2\nexit 1\n', { mode: 0o755 });
  const broken = await checkPluginSandbox({ bwrap: fake });
  assert.equal(broken.status, 'warn');
  assert.match(broken.detail, /does not work here: bwrap: setting up uid map: Permission denied\)$/);
  assert.match(broken.fix ?? '', /user namespaces/);
});

test('a model the provider does not have fails with `ollama pull`', async (t) => {
  const host = await fakeOllama(t, ['llama3.2:1b']);
  const config = { ...DEFAULT_CONFIG, model: { ...DEFAULT_CONFIG.model, default: 'ollama:qwen2.5:7b' }, raw: { providers: { ollama: { host } } } };
  const missing = await checkModel(config, {});
  assert.equal(missing.status, 'fail', missing.detail);
  assert.match(missing.detail, /does not have qwen2\.5:7b: run `ollama pull qwen2\.5:7b` \(it has: llama3\.2:1b\)/);
  assert.equal(missing.fix, 'ollama pull qwen2.5:7b');
  const present = await checkModel({ ...config, model: { ...config.model, default: 'ollama:llama3.2:1b' } }, {});
  assert.equal(present.status, 'ok', present.detail);
});

test('doctor on a broken setup: each failing line names the problem and the fix, exit 1', async (t) => {
  const home = path.join(tempDir(t, 'kw-doc-'), 'home');
  const engine = await testEngine(t, {}, home);
  await engine.close();
  fs.writeFileSync(path.join(home, 'kowalski.sqlite'), Buffer.alloc(8192, 7)); // not a database any more
  for (const f of ['kowalski.sqlite-wal', 'kowalski.sqlite-shm']) fs.rmSync(path.join(home, f), { force: true });
  const [modelPort, searchPort] = [await closedPort(), await closedPort()];
  fs.writeFileSync(path.join(home, 'config.toml'), `[model]
default = "ollama:qwen2.5:7b"
[providers.ollama]
host = "http://127.0.0.1:${modelPort}"
[tools.web_search]
provider = "searxng"
url = "http://127.0.0.1:${searchPort}"
[[mcp.servers]]
name = "gone"
command = "/nonexistent/kw-mcp-server"
`);
  const taken = http.createServer((_req, res) => res.end('not kowalski'));
  await new Promise<void>((r) => taken.listen(0, '127.0.0.1', r));
  cleanups(t)(() => new Promise((r) => taken.close(r)));
  fs.chmodSync(home, 0o000);
  cleanups(t)(() => fs.chmodSync(home, 0o700));

  const r = await cli(home, ['doctor', '--json', '--port', String((taken.address() as AddressInfo).port)]);
  assert.equal(r.code, 1, outputOf(r));
  const { ok, checks } = stdoutJson<{ ok: boolean; checks: Check[] }>(r);
  assert.equal(ok, false);
  const c = byName(checks);
  const failing: [string, RegExp, RegExp][] = [
    ['data folder', /\(mode 0000\) is not readable, writable and searchable by its owner/, /chmod 700/],
    ['database', /is damaged/, /\.recover/],
    ['model', new RegExp(`Ollama at http://127\\.0\\.0\\.1:${modelPort} could not be reached`), /ollama serve/],
    ['mcp gone', /nonexistent/, /mcp\.servers/],
    ['web search', /does not answer/, /\[tools\.web_search\] url/],
    ['port', /taken by another program/, /--port/],
  ];
  for (const [name, detail, fix] of failing) {
    const line = c.get(name);
    assert.equal(line?.status, 'fail', `${name}: ${JSON.stringify(line)}`);
    assert.match(line.detail, detail, name);
    assert.match(line.fix ?? '', fix, name);
  }
  assert.equal(c.get('node')?.status, 'ok');

  // The same as text: one line per check, FAIL marked, the fix beneath.
  const text = await cli(home, ['doctor', '--port', String((taken.address() as AddressInfo).port)]);
  assert.equal(text.code, 1, outputOf(text));
  assert.match(text.stdout, /^FAIL {2}database +\S.*\n {6}fix: /m);
  assert.match(text.stdout, /some checks failed\n$/);
});

test('doctor: a bad config.toml fails naming the key; a healthy folder exits 0', async (t) => {
  const home = path.join(tempDir(t, 'kw-doc-'), 'home');
  const engine = await testEngine(t, {}, home);
  await engine.close();
  fs.writeFileSync(path.join(home, 'config.toml'), '[runs]\nmax_parallel_steps = "many"\n');
  const port = String(await closedPort());
  const bad = await cli(home, ['doctor', '--json', '--port', port]);
  assert.equal(bad.code, 1, outputOf(bad));
  const config = byName(stdoutJson<{ checks: Check[] }>(bad).checks).get('config');
  assert.equal(config?.status, 'fail');
  assert.match(config.detail, /runs\.max_parallel_steps/);

  const host = await fakeOllama(t, ['qwen2.5:7b']);
  fs.writeFileSync(path.join(home, 'config.toml'), `[model]\ndefault = "ollama:qwen2.5:7b"\n[providers.ollama]\nhost = "${host}"\n`);
  const good = await cli(home, ['doctor', '--json', '--port', port]);
  assert.equal(good.code, 0, outputOf(good));
  const checks = stdoutJson<{ ok: boolean; checks: Check[] }>(good).checks;
  assert.deepEqual(checks.filter((x) => x.status === 'fail'), []);
  assert.equal(byName(checks).get('model')?.detail, `ollama:qwen2.5:7b: Ollama at ${host} has qwen2.5:7b`);
  assert.equal(byName(checks).get('database')?.status, 'ok');
  // This machine's bubblewrap, tried as the engine tries it (CI installs it).
  const sandbox = byName(checks).get('plugin sandbox');
  if (findBwrap() === undefined) assert.equal(sandbox?.status, 'warn');
  else assert.match(`${sandbox?.status} ${sandbox?.detail}`, /^ok bubblewrap \(\/.*bwrap\): each plugin runs in its own network and PID namespaces/);
  assert.equal(byName(checks).get('config keys'), undefined, 'every key is known: no warning');

  // A misspelt key: a warning naming the file, the line, the key and the nearest one; still exit 0.
  const file = path.join(home, 'config.toml');
  fs.appendFileSync(file, '[runs]\nmax_paralel_steps = 2\n');
  const misspelt = await cli(home, ['doctor', '--port', port]);
  assert.equal(misspelt.code, 0, outputOf(misspelt));
  const line = misspelt.stdout.split('\n').findIndex((l) => l.startsWith('warn  config keys'));
  assert.ok(line >= 0, misspelt.stdout);
  assert.match(misspelt.stdout.split('\n')[line] ?? '', /config keys +\S+:6: runs\.max_paralel_steps is not a key kowalski reads, so it is ignored; did you mean runs\.max_parallel_steps\?$/);
  assert.ok(misspelt.stdout.split('\n')[line]?.includes(`${file}:6:`), misspelt.stdout);
  assert.equal(misspelt.stdout.split('\n')[line + 1], '      fix: rename it to runs.max_parallel_steps (or remove it)');
});

test('doctor beside a running server: an adapter in error is named with its last error and the fix; the port is this folder\'s server, or another folder\'s', async (t) => {
  const home = path.join(tempDir(t, 'kw-doc-'), 'home');
  fs.mkdirSync(home, { mode: 0o700 });
  fs.writeFileSync(path.join(home, 'config.toml'), '[adapters.cal]\ntype = "calendar"\nenabled = true\nics = ["/nonexistent/kowalski/team.ics"]\n', { mode: 0o600 });
  writeTestToken(home);
  const server = startCli(home, ['serve', '--no-open', '--port', '0'], { limitMs: 120_000 });
  server.exited.catch(() => undefined);
  cleanups(t)(async () => {
    server.child.kill('SIGTERM');
    await server.exited.catch(() => undefined);
  });
  const url = /at (http:\/\/127\.0\.0\.1:(\d+)\/)/.exec(await server.stderrLine(/^kowalski serving .* at http/))!;
  const port = url[2]!;
  await waitFor(async () => {
    const res = await fetch(`${url[1]}api/adapters`, { headers: AUTH });
    return ((await res.json()) as { adapters: { state: string }[] }).adapters[0]?.state === 'error';
  }, 'the calendar adapter to fail its start');

  const own = await cli(home, ['doctor', '--json', '--port', port]);
  assert.equal(own.code, 1, outputOf(own));
  const c = byName(stdoutJson<{ checks: Check[] }>(own).checks);
  const cal = c.get('adapter cal');
  assert.equal(cal?.status, 'fail', JSON.stringify([...c.values()]));
  assert.match(cal.detail, /^the calendar adapter is in error: .*\/nonexistent\/kowalski\/team\.ics: cannot be read/);
  assert.equal(cal.fix, 'correct [adapters.cal] in config.toml (docs/adapters.md), then start it again: kowalski adapters enable cal');
  assert.equal(c.get('port')?.status, 'ok');
  assert.match(c.get('port')!.detail, new RegExp(`^127\\.0\\.0\\.1:${port} is held by this data folder's kowalski server \\(process \\d+\\)$`));

  // Another data folder, asked about the same port: a server is there, but not its own.
  const other = path.join(tempDir(t, 'kw-doc-'), 'other');
  const engine = await testEngine(t, {}, other);
  await engine.close();
  const theirs = await cli(other, ['doctor', '--json', '--port', port]);
  const p = byName(stdoutJson<{ checks: Check[] }>(theirs).checks).get('port');
  assert.equal(p?.status, 'fail', outputOf(theirs));
  assert.equal(p.detail, `127.0.0.1:${port} is held by the kowalski server of another data folder, not ${other}`);
  assert.match(p.fix ?? '', new RegExp(`kowalski serve --port ${Number(port) + 1}`));
  assert.equal(byName(stdoutJson<{ checks: Check[] }>(theirs).checks).get('adapters')?.detail, 'none configured');
});

test('doctor: a bad adapter section is fixed in config.toml, not in Setup (which has no adapter fields); a bad model key may be fixed in either', async (t) => {
  const home = path.join(tempDir(t, 'kw-doc-'), 'home');
  const engine = await testEngine(t, {}, home);
  await engine.close();
  const port = String(await closedPort());
  const file = path.join(home, 'config.toml');
  fs.writeFileSync(file, '[adapters.mail]\ntype = "carrier-pigeon"\n');
  const adapter = byName(stdoutJson<{ checks: Check[] }>(await cli(home, ['doctor', '--json', '--port', port])).checks).get('config');
  assert.equal(adapter?.status, 'fail');
  assert.match(adapter.detail, /adapters\.mail/);
  assert.equal(adapter.fix, `correct ${file} (the message names the key)`);
  fs.writeFileSync(file, '[model]\ntool_calling = "sometimes"\n');
  const model = byName(stdoutJson<{ checks: Check[] }>(await cli(home, ['doctor', '--json', '--port', port])).checks).get('config');
  assert.equal(model?.status, 'fail');
  assert.equal(model.fix, `correct ${file} (the message names the key), or fix it in the app's Setup screen`);
});
