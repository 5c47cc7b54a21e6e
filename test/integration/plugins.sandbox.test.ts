/**
 * Plugins in bubblewrap where the machine has it, and what is left without it. One plugin's
 * code tries what Node's permission model does not cover — a raw socket to a real server
 * listening on 127.0.0.1 and to the internet, a signal to the engine's pid and to its parent,
 * reading kowalski's data folder (api-token, config.toml) through a grant that holds it — and
 * a granted file and kowalski.fetch, which must keep working. Under bwrap each attempt fails
 * (asserted outcome by outcome); with Node's permission model only (the test's NODE_ONLY, as on
 * a machine without bwrap) the socket and the signal get through, as docs/plugins.md says, and
 * a grant holding the data folder is refused at start. The bwrap tests skip, saying why, only
 * when bwrap is not installed; a bwrap that is installed and does not work fails them.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { detectSandbox, findBwrap } from '../../engine/plugins/runner/index.js';
import { cleanups } from '../../testkit/cleanup.js';
import { machineSandbox, NO_GRANTS, NODE_ONLY, startTestPlugin } from '../support/plugins.js';
import { tempDir } from '../../testkit/tmp.js';
import { waitFor } from '../../testkit/wait.js';

const NO_BWRAP = findBwrap() === undefined ? 'bubblewrap (bwrap) is not installed on this machine: apt-get install bubblewrap to run this test' : false;

const PROBE = `
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
export async function get(a) {
  return new Promise((resolve) => {
    const req = http.get(a.url, { timeout: 5000 }, (res) => { let b = ''; res.on('data', (c) => { b += c; }); res.on('end', () => resolve({ body: b })); });
    req.on('timeout', () => req.destroy(Object.assign(new Error('timeout'), { code: 'TIMEOUT' })));
    req.on('error', (e) => resolve({ code: e.code }));
  });
}
export async function connect(a) {
  return new Promise((resolve) => {
    const s = net.connect({ host: a.host, port: a.port });
    s.setTimeout(5000, () => { s.destroy(); resolve({ code: 'TIMEOUT' }); });
    s.on('connect', () => { s.destroy(); resolve({ connected: true }); });
    s.on('error', (e) => resolve({ code: e.code }));
  });
}
export async function signal(a) {
  const out = { ppid: process.ppid };
  for (const [name, pid] of [['engine', a.engine], ['parent', process.ppid]]) {
    try { process.kill(pid, 'SIGUSR2'); out[name] = 'sent'; } catch (e) { out[name] = e.code; }
  }
  return out;
}
export async function read(a) {
  try { return { text: fs.readFileSync(a.path, 'utf8') }; } catch (e) { return { code: e.code }; }
}
export async function list(a) {
  try { return { names: fs.readdirSync(a.path).sort() }; } catch (e) { return { code: e.code }; }
}
export async function fetched(a, k) {
  const res = await k.fetch(a.url);
  return { status: res.status, body: await res.text() };
}
`;
const TOOLS = ['get', 'connect', 'signal', 'read', 'list', 'fetched'];

async function listening(t: TestContext): Promise<{ port: number; requests: string[] }> {
  const requests: string[] = [];
  const srv = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    res.end('reached');
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  cleanups(t)(() => new Promise((resolve) => srv.close(resolve)));
  return { port: (srv.address() as AddressInfo).port, requests };
}

/** SIGUSR2s this process receives while the test runs. */
function countSignals(t: TestContext): { count: number } {
  const seen = { count: 0 };
  const onSignal = (): void => void (seen.count += 1);
  process.on('SIGUSR2', onSignal);
  cleanups(t)(() => process.off('SIGUSR2', onSignal));
  return seen;
}

/** A home folder with a granted note and, inside it, a stand-in of kowalski's data folder. */
function homeWithData(t: TestContext): { home: string; data: string; note: string } {
  const home = fs.realpathSync(tempDir(t, 'kw-sandbox-home-'));
  const data = path.join(home, '.kowalski');
  fs.mkdirSync(path.join(data, 'vault'), { recursive: true });
  fs.writeFileSync(path.join(data, 'api-token'), 'kw-secret-token');
  fs.writeFileSync(path.join(data, 'config.toml'), '[providers.anthropic]\napi_key = "sk-ant-secret"\n');
  fs.writeFileSync(path.join(data, 'vault', 'note.md'), 'private');
  const note = path.join(home, 'notes.txt');
  fs.writeFileSync(note, 'granted notes');
  return { home, data, note };
}

const json = async (p: Promise<{ content: string }>): Promise<unknown> => JSON.parse((await p).content);

test('under bubblewrap: no socket reaches 127.0.0.1 or the internet, no signal reaches the engine, the data folder is hidden; granted paths and kowalski.fetch work', { skip: NO_BWRAP }, async (t) => {
  const sandbox = await machineSandbox();
  assert.equal(sandbox.kind, 'bwrap', `bubblewrap is installed and must work here: ${sandbox.kind === 'node' ? sandbox.reason : ''}`);
  const api = await listening(t);
  const granted = await listening(t);
  const signals = countSignals(t);
  const { home, data, note } = homeWithData(t);
  const p = startTestPlugin(t, { 'index.js': PROBE }, TOOLS, {
    permissions: { ...NO_GRANTS, fsRead: [home], net: ['127.0.0.1'] },
    privateDirs: [data],
    testOnlyFetchAllow: [`127.0.0.1:${granted.port}`],
  });

  // Its own network namespace: the server listening on our 127.0.0.1 is not there, nor is any route out.
  assert.deepEqual(await json(p.call('get', { url: `http://127.0.0.1:${api.port}/api/health` })), { code: 'ECONNREFUSED' });
  assert.deepEqual(await json(p.call('connect', { host: '127.0.0.1', port: api.port })), { code: 'ECONNREFUSED' });
  assert.deepEqual(await json(p.call('connect', { host: '1.1.1.1', port: 443 })), { code: 'ENETUNREACH' });
  assert.deepEqual(api.requests, []);
  // kowalski.fetch goes through the engine, over IPC: it still works, for what it was granted.
  assert.deepEqual(await json(p.call('fetched', { url: `http://127.0.0.1:${granted.port}/through-the-engine` })), { status: 200, body: 'reached' });
  assert.deepEqual(granted.requests, ['GET /through-the-engine']);

  // Its own PID namespace: our pid is no process there, and its parent is the namespace's init, which ignores it.
  assert.deepEqual(await json(p.call('signal', { engine: process.pid })), { ppid: 1, engine: 'ESRCH', parent: 'sent' });
  assert.equal((await p.call('read', { path: note })).content, JSON.stringify({ text: 'granted notes' }), 'still running after signalling its parent');
  assert.equal(signals.count, 0);

  // Granted ~ (here: home) holds kowalski's data folder: an empty tmpfs is mounted over it.
  assert.deepEqual(await json(p.call('read', { path: note })), { text: 'granted notes' });
  assert.deepEqual(await json(p.call('read', { path: path.join(data, 'api-token') })), { code: 'ENOENT' });
  assert.deepEqual(await json(p.call('read', { path: path.join(data, 'config.toml') })), { code: 'ENOENT' });
  assert.deepEqual(await json(p.call('list', { path: data })), { names: [] });
  // Outside the grant Node's permission model answers first, as it does without bwrap (the two are layers).
  assert.deepEqual(await json(p.call('list', { path: path.dirname(home) })), { code: 'ERR_ACCESS_DENIED' });
  assert.deepEqual(p.proc.stats(), { restarts: 0, failures: 0, running: true });
});

test('under bubblewrap a plugin whose folder lies in the data folder (as <data>/plugins/local/<name> does) runs, and sees none of the rest of it', { skip: NO_BWRAP }, async (t) => {
  // The test plugin's folder is <dir>/plugin and its data folder <dir>/data: <dir> stands for kowalski's data folder, and all of /tmp is granted.
  const privateDirs: string[] = [];
  const p = startTestPlugin(t, { 'index.js': PROBE, 'words.txt': 'its own' }, TOOLS, {
    permissions: { ...NO_GRANTS, fsRead: [fs.realpathSync(os.tmpdir())] },
    privateDirs,
    prepare: (root) => {
      privateDirs.push(path.dirname(root));
      fs.writeFileSync(path.join(path.dirname(root), 'api-token'), 'kw-secret-token');
    },
  });
  assert.deepEqual(await json(p.call('read', { path: path.join(p.root, 'words.txt') })), { text: 'its own' });
  assert.deepEqual(await json(p.call('read', { path: path.join(p.dir, 'api-token') })), { code: 'ENOENT' });
  assert.deepEqual(await json(p.call('list', { path: p.dir })), { names: ['data', 'plugin'] }, 'only the mount points of its own folders');
});

test('without bubblewrap (Node only): a socket and a signal get through, as docs/plugins.md says; a grant holding the data folder is refused at start', async (t) => {
  const api = await listening(t);
  const signals = countSignals(t);
  const { home, data, note } = homeWithData(t);
  const p = startTestPlugin(t, { 'index.js': PROBE }, TOOLS, { sandbox: NODE_ONLY, permissions: { ...NO_GRANTS, fsRead: [path.dirname(note)] }, privateDirs: [] });
  // If these start failing, Node refuses sockets or signals under the permission model now: say so in docs/plugins.md.
  assert.deepEqual(await json(p.call('get', { url: `http://127.0.0.1:${api.port}/direct` })), { body: 'reached' });
  assert.deepEqual(api.requests, ['GET /direct']);
  assert.deepEqual(await json(p.call('signal', { engine: process.pid })), { ppid: process.pid, engine: 'sent', parent: 'sent' });
  // Its parent is the engine: the two signals are one pending SIGUSR2 (standard signals do not queue).
  await waitFor(() => signals.count > 0, 'the signal to reach this process');

  const refused = startTestPlugin(t, { 'index.js': PROBE }, TOOLS, { sandbox: NODE_ONLY, permissions: { ...NO_GRANTS, fsRead: [home] }, privateDirs: [data] });
  const message = `plugin hello: its fs.read path ${home} holds kowalski's data folder ${data} (its API token, config and database), and without bubblewrap nothing hides that from the plugin (bubblewrap is turned off for this test): install bubblewrap (apt-get install bubblewrap), or grant it a narrower path; it is not started`;
  await assert.rejects(refused.call('read', { path: path.join(data, 'api-token') }), { code: 'KW_ERR_PLUGIN_START', message });
  assert.deepEqual(refused.failures.map((f) => [f.phase, f.err.message]), [['start', message]]);
});

test('either way, a grant inside the data folder, or a plugin folder holding it, is refused at start', async (t) => {
  const { data } = homeWithData(t);
  const vault = path.join(data, 'vault');
  for (const sandbox of NO_BWRAP === false ? [NODE_ONLY, await machineSandbox()] : [NODE_ONLY]) {
    const inside = startTestPlugin(t, { 'index.js': PROBE }, TOOLS, { sandbox, permissions: { ...NO_GRANTS, fsRead: [vault] }, privateDirs: [data] });
    await assert.rejects(inside.call('list', { path: vault }), {
      code: 'KW_ERR_PLUGIN_START', message: `plugin hello: its fs.read path ${vault} lies in kowalski's data folder ${data}, which no plugin may see; it is not started`,
    });
    const privateDirs: string[] = [];
    const holding = startTestPlugin(t, { 'index.js': PROBE, 'kw-data/api-token': 'kw-secret-token' }, TOOLS, { sandbox, privateDirs, prepare: (root) => privateDirs.push(path.join(root, 'kw-data')) });
    await assert.rejects(holding.call('list', { path: privateDirs[0]! }), {
      code: 'KW_ERR_PLUGIN_START', message: `plugin hello: its folder ${holding.root} holds kowalski's data folder ${privateDirs[0]!}, which no plugin may see; it is not started`,
    });
  }
});

test('detectSandbox: none when turned off or absent, and a bwrap that fails its trial run is reported in its own words', async (t) => {
  assert.deepEqual(await detectSandbox({ bwrap: null }), { kind: 'node', cause: 'off', reason: 'bubblewrap is turned off for this engine' });
  assert.deepEqual(await detectSandbox({ env: { PATH: '/nonexistent' }, bwrap: '/nonexistent/bwrap' }), { kind: 'node', cause: 'absent', reason: 'bubblewrap is not at /nonexistent/bwrap' });
  const dir = tempDir(t, 'kw-fake-bwrap-');
  const fake = path.join(dir, 'bwrap');
  fs.writeFileSync(fake, '#!/bin/sh\necho "bwrap: No permissions to create new namespace" >&2\nexit 1\n', { mode: 0o755 });
  assert.deepEqual(await detectSandbox({ bwrap: fake }), { kind: 'node', cause: 'failed', reason: `bubblewrap (${fake}) does not work here: bwrap: No permissions to create new namespace` });
});
