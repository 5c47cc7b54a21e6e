/**
 * A plugin's process is confined by Node's permission model, not by convention: its code
 * calls node:fs, node:child_process and process.env directly (none of our helpers), and
 * every attempt outside its grants is refused by Node itself (ERR_ACCESS_DENIED, seen by
 * the plugin's own catch), reported as KW_ERR_PLUGIN_PERMISSION naming what it tried and
 * the grant it lacks, and passed to onFailure. Its network goes through kowalski.fetch:
 * granted hosts only, under web_fetch's address rules. These run as this machine confines
 * plugins (bubblewrap where it works): the permission model is the same inside it. What
 * bubblewrap adds (sockets, signals, the data folder hidden) is plugins.sandbox.test.ts.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { KowalskiError } from '../../core/index.js';
import type { ErrorCode } from '../../core/index.js';
import { cleanups } from '../../testkit/cleanup.js';
import { NO_GRANTS, startTestPlugin } from '../support/plugins.js';

/** The plugin catches and reports what Node threw: proof that the refusal is Node's, under the plugin's own code. */
const PROBE = `
import fs from 'node:fs';
import cp from 'node:child_process';
import { Worker } from 'node:worker_threads';
const attempts = {
  read: (a) => fs.readFileSync(a.path, 'utf8'),
  write: (a) => fs.writeFileSync(a.path, 'written by the plugin'),
  spawn: (a) => cp.spawnSync('/bin/sh', ['-c', 'touch ' + a.path]).status,
  worker: () => new Worker('1', { eval: true }) && 'started',
};
export async function probe(a) {
  try { return { ok: String(attempts[a.what](a)) }; }
  catch (e) { return { code: e.code, permission: e.permission ?? null, resource: e.resource ?? null }; }
}
export async function attempt(a) { return String(attempts[a.what](a)); }
export async function env() { return JSON.stringify(process.env); }
export async function own(a, k) {
  fs.writeFileSync(k.dataDir + '/note.txt', a.text);
  return fs.readFileSync(k.dataDir + '/note.txt', 'utf8') + ' / ' + fs.readFileSync(new URL('./words.txt', import.meta.url), 'utf8');
}
export async function get(a, k) {
  const res = await k.fetch(a.url, a.init);
  return { status: res.status, body: await res.text(), type: res.headers['content-type'] ?? null };
}
`;
const TOOLS = ['probe', 'attempt', 'env', 'own', 'get'];

async function refused(promise: Promise<unknown>, code: ErrorCode, message: string): Promise<void> {
  await assert.rejects(promise, (err: unknown) => {
    assert.ok(err instanceof KowalskiError, String(err));
    assert.equal(err.code, code);
    assert.equal(err.message, message);
    return true;
  });
}

/** A file outside every grant, which this (unconfined) test process can read. */
function secretFile(dir: string): string {
  const file = path.join(dir, 'secret.txt');
  fs.writeFileSync(file, 'the secret');
  assert.equal(fs.readFileSync(file, 'utf8'), 'the secret');
  return file;
}

test('a tool works: it reads its own folder, reads and writes its data folder, and sees no variable of ours', async (t) => {
  const p = startTestPlugin(t, { 'index.js': PROBE, 'words.txt': 'from its folder' }, TOOLS);
  const out = await p.call('own', { text: 'kept' });
  assert.equal(out.content, 'kept / from its folder');
  assert.equal(fs.readFileSync(path.join(p.dataDir, 'note.txt'), 'utf8'), 'kept');
  assert.deepEqual(JSON.parse((await p.call('env')).content), {});
  assert.deepEqual(p.failures, []);
  assert.deepEqual(p.proc.stats(), { restarts: 0, failures: 0, running: true });
});

test('reading ~/.ssh or any file outside its grants is refused by Node, and reported', async (t) => {
  const p = startTestPlugin(t, { 'index.js': PROBE }, TOOLS);
  const ssh = path.join(os.homedir(), '.ssh', 'id_rsa');
  const secret = secretFile(p.dir);
  assert.deepEqual(JSON.parse((await p.call('probe', { what: 'read', path: secret })).content), { code: 'ERR_ACCESS_DENIED', permission: 'FileSystemRead', resource: secret });
  await refused(p.call('attempt', { what: 'read', path: ssh }), 'KW_ERR_PLUGIN_PERMISSION', `plugin hello may not read ${ssh} (fs.read not granted)`);
  // `..` does not climb out: Node checks the resolved path (and names the path as the plugin wrote it).
  await refused(p.call('attempt', { what: 'read', path: `${p.root}/../secret.txt` }), 'KW_ERR_PLUGIN_PERMISSION', `plugin hello may not read ${p.root}/../secret.txt (fs.read not granted)`);
  assert.deepEqual(p.failures.map((f) => [f.phase, (f.err as KowalskiError).code]), [['call', 'KW_ERR_PLUGIN_PERMISSION'], ['call', 'KW_ERR_PLUGIN_PERMISSION']]);
  assert.equal(p.proc.stats().failures, 2);
});

test('a granted read path is readable, and only it', async (t) => {
  const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'kw-grant-')));
  cleanups(t)(() => fs.rmSync(outside, { recursive: true, force: true }));
  fs.mkdirSync(path.join(outside, 'shared'));
  fs.writeFileSync(path.join(outside, 'shared', 'a.txt'), 'granted');
  fs.writeFileSync(path.join(outside, 'b.txt'), 'not granted');
  const p = startTestPlugin(t, { 'index.js': PROBE }, TOOLS, { permissions: { ...NO_GRANTS, fsRead: [path.join(outside, 'shared')] } });
  assert.equal((await p.call('attempt', { what: 'read', path: path.join(outside, 'shared', 'a.txt') })).content, 'granted');
  await refused(p.call('attempt', { what: 'read', path: path.join(outside, 'b.txt') }), 'KW_ERR_PLUGIN_PERMISSION', `plugin hello may not read ${path.join(outside, 'b.txt')} (fs.read not granted)`);
  await refused(p.call('attempt', { what: 'write', path: path.join(outside, 'shared', 'c.txt') }), 'KW_ERR_PLUGIN_PERMISSION', `plugin hello may not write ${path.join(outside, 'shared', 'c.txt')} (fs.write not granted)`);
});

test('writing outside its data folder is refused by Node (its own folder included), and nothing is written', async (t) => {
  const p = startTestPlugin(t, { 'index.js': PROBE }, TOOLS);
  const outside = path.join(p.dir, 'planted.txt');
  const inRoot = path.join(p.root, 'index.js');
  assert.deepEqual(JSON.parse((await p.call('probe', { what: 'write', path: outside })).content), { code: 'ERR_ACCESS_DENIED', permission: 'FileSystemWrite', resource: outside });
  await refused(p.call('attempt', { what: 'write', path: outside }), 'KW_ERR_PLUGIN_PERMISSION', `plugin hello may not write ${outside} (fs.write not granted)`);
  await refused(p.call('attempt', { what: 'write', path: inRoot }), 'KW_ERR_PLUGIN_PERMISSION', `plugin hello may not write ${inRoot} (fs.write not granted)`);
  assert.equal(fs.existsSync(outside), false);
  assert.equal(fs.readFileSync(inRoot, 'utf8'), PROBE);
  assert.equal(p.failures.length, 2);
});

test('starting a process or a worker is refused by Node unless exec is granted', async (t) => {
  const p = startTestPlugin(t, { 'index.js': PROBE }, TOOLS);
  const marker = path.join(p.dir, 'spawned');
  assert.deepEqual(JSON.parse((await p.call('probe', { what: 'spawn', path: marker })).content), { code: 'ERR_ACCESS_DENIED', permission: 'ChildProcess', resource: '' });
  await refused(p.call('attempt', { what: 'spawn', path: marker }), 'KW_ERR_PLUGIN_PERMISSION', 'plugin hello may not start a child process (exec not granted)');
  await refused(p.call('attempt', { what: 'worker' }), 'KW_ERR_PLUGIN_PERMISSION', 'plugin hello may not start a worker thread (exec not granted)');
  assert.equal(fs.existsSync(marker), false);
  assert.equal(p.failures.length, 2);

  const granted = startTestPlugin(t, { 'index.js': PROBE }, TOOLS, { permissions: { ...NO_GRANTS, exec: true, fsWrite: [] } });
  const grantedMarker = path.join(granted.dataDir, 'spawned');
  assert.equal((await granted.call('attempt', { what: 'spawn', path: grantedMarker })).content, '0');
  assert.equal(fs.existsSync(grantedMarker), true);
});

test('an environment variable not granted is simply absent: no API token, no provider key', async (t) => {
  const set = { KOWALSKI_API_TOKEN: 'tok-should-not-leak', ANTHROPIC_API_KEY: 'sk-ant-should-not-leak', OPENAI_API_KEY: 'sk-should-not-leak', PLUGIN_GREETING: 'hello there', NODE_OPTIONS: '--allow-fs-read=/' };
  const before = Object.fromEntries(Object.keys(set).map((k) => [k, process.env[k]]));
  Object.assign(process.env, set);
  cleanups(t)(() => {
    for (const [k, v] of Object.entries(before)) if (v === undefined) delete process.env[k]; else process.env[k] = v;
  });
  // NODE_OPTIONS is never passed, even when granted: it could change how the process starts.
  const p = startTestPlugin(t, { 'index.js': PROBE }, TOOLS, { permissions: { ...NO_GRANTS, env: ['PLUGIN_GREETING', 'NODE_OPTIONS', 'UNSET_VARIABLE'] } });
  assert.deepEqual(JSON.parse((await p.call('env')).content), { PLUGIN_GREETING: 'hello there' });
});

async function server(t: TestContext, handler: http.RequestListener): Promise<{ port: number; requests: string[] }> {
  const requests: string[] = [];
  const srv = http.createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  cleanups(t)(() => new Promise((resolve) => srv.close(resolve)));
  return { port: (srv.address() as AddressInfo).port, requests };
}

test('kowalski.fetch reaches a granted host, and no other: not by name, not by a redirect, not past the address rules', async (t) => {
  const granted = await server(t, (req, res) => {
    if (req.url === '/away') {
      res.writeHead(302, { location: `http://localhost:${other.port}/` }).end();
      return;
    }
    let body = '';
    req.on('data', (chunk: Buffer) => { body += chunk.toString(); });
    req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ got: body })));
  });
  const other = await server(t, (_req, res) => res.end('should not be reached'));
  const p = startTestPlugin(t, { 'index.js': PROBE }, TOOLS, {
    permissions: { ...NO_GRANTS, net: ['127.0.0.1'] },
    testOnlyFetchAllow: [`127.0.0.1:${granted.port}`],
  });
  const ok = JSON.parse((await p.call('get', { url: `http://127.0.0.1:${granted.port}/echo`, init: { method: 'POST', body: 'ping' } })).content);
  assert.deepEqual(ok, { status: 200, body: '{"got":"ping"}', type: 'application/json' });

  await refused(p.call('get', { url: `http://localhost:${other.port}/` }), 'KW_ERR_PLUGIN_PERMISSION', `plugin hello may not fetch http://localhost:${other.port} (net not granted)`);
  await refused(p.call('get', { url: 'https://example.com/' }), 'KW_ERR_PLUGIN_PERMISSION', 'plugin hello may not fetch https://example.com (net not granted)');
  await refused(p.call('get', { url: `http://127.0.0.1:${granted.port}/away` }), 'KW_ERR_PLUGIN_PERMISSION',
    `plugin hello may not fetch http://localhost:${other.port} (net not granted) (reached by a redirect from http://127.0.0.1:${granted.port}/away)`);
  // A granted host is still held to web_fetch's rules: loopback is refused unless a test allows that exact ip:port.
  await assert.rejects(p.call('get', { url: `http://127.0.0.1:${other.port}/` }), (err: KowalskiError) => err.code === 'KW_ERR_FETCH_BLOCKED' && /loopback/.test(err.message));
  assert.deepEqual(other.requests, []);
  assert.deepEqual(granted.requests, ['POST /echo', 'GET /away']);
  assert.deepEqual(p.failures.map((f) => (f.err as KowalskiError).code), ['KW_ERR_PLUGIN_PERMISSION', 'KW_ERR_PLUGIN_PERMISSION', 'KW_ERR_PLUGIN_PERMISSION', 'KW_ERR_FETCH_BLOCKED']);
});

test('a refused fetch is reported although the plugin swallows the error', async (t) => {
  const p = startTestPlugin(t, {
    'index.js': 'export async function quiet(a, k) { try { await k.fetch("https://example.com/"); return "fetched"; } catch (e) { return "swallowed " + e.code; } }',
  }, ['quiet']);
  assert.equal((await p.call('quiet')).content, 'swallowed KW_ERR_PLUGIN_PERMISSION');
  assert.deepEqual(p.failures.map((f) => [f.phase, f.err.message]), [['call', 'plugin hello may not fetch https://example.com (net not granted)']]);
});

test('a plugin folder holding a link to outside itself is not started (Node 20 would follow it)', async (t) => {
  const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'kw-link-')));
  cleanups(t)(() => fs.rmSync(outside, { recursive: true, force: true }));
  const secret = secretFile(outside);
  const p = startTestPlugin(t, { 'index.js': 'export async function read() { return "never"; }', 'lib/inside.txt': 'x' }, ['read'], {
    name: 'linky',
    prepare: (root) => {
      fs.symlinkSync(path.join(root, 'lib', 'inside.txt'), path.join(root, 'fine-link'));
      fs.symlinkSync(secret, path.join(root, 'lib', 'out-link'));
    },
  });
  const message = `plugin linky: ${p.root}/lib/out-link is a link to ${secret}, outside the plugin's folder; Node would follow it past the plugin's grants, so the plugin is not started`;
  await refused(p.call('read'), 'KW_ERR_PLUGIN_START', message);
  assert.deepEqual(p.failures.map((f) => [f.phase, f.err.message]), [['start', message]]);
  // The next call starts it again (a restart), and it is refused again.
  await refused(p.call('read'), 'KW_ERR_PLUGIN_START', message);
  assert.deepEqual(p.proc.stats(), { restarts: 1, failures: 2, running: false });
});
