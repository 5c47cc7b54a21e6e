/**
 * Discovery refuses what is not a regular file, at once and naming it: a manifest or a
 * package.json that is a FIFO (it used to hang the engine's start, and a rescan, forever), a
 * socket, a link to /dev/zero (it used to be read until 760 MB and "Invalid string length"),
 * a link to a FIFO, or larger than its bound. The engine starts, the other plugins are found.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { cleanups } from '../../testkit/cleanup.js';
import { testEngine } from '../support/engine.js';
import { installExample, installExamplePackage } from '../support/plugin-home.js';
import { tempDir } from '../../testkit/tmp.js';

const mkfifo = (file: string): void => void execFileSync('mkfifo', [file]);

/** A copy of the example plugin under `local/<folder>` whose manifest is replaced by what `make` puts at its path. */
function brokenFolder(home: string, docs: string, folder: string, make: (manifest: string) => void): string {
  const manifest = installExample(home, docs, folder);
  fs.rmSync(manifest);
  make(manifest);
  return manifest;
}

test('manifests that are a FIFO, a socket, a link to /dev/zero or to a FIFO, or too large: each refused by name; the engine starts and finds the good one', async (t) => {
  const home = tempDir(t, 'kw-plug-disc-');
  const docs = fs.realpathSync(tempDir(t, 'kw-plug-docs-'));
  installExample(home, docs);
  const elsewhere = fs.realpathSync(tempDir(t, 'kw-plug-else-'));
  const fifo = brokenFolder(home, docs, 'fifo', mkfifo);
  const zero = brokenFolder(home, docs, 'zero', (m) => fs.symlinkSync('/dev/zero', m));
  const farFifo = path.join(elsewhere, 'pipe');
  mkfifo(farFifo);
  const linkedFifo = brokenFolder(home, docs, 'linked-fifo', (m) => fs.symlinkSync(farFifo, m));
  const huge = brokenFolder(home, docs, 'huge', (m) => fs.writeFileSync(m, `# ${'x'.repeat(64 * 1024)}\n`));
  const socket = brokenFolder(home, docs, 'socket', () => undefined);
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  cleanups(t)(() => new Promise((resolve) => server.close(resolve)));

  // Before the fix, createEngine never returned: its rescan waited on the FIFO's open.
  const engine = await testEngine(t, {}, home);
  const by = new Map(engine.plugins.list().map((p) => [p.name, p]));
  assert.equal(by.get('hello')?.state, 'pending', 'the good plugin is found beside the bad ones');
  const failure = (name: string) => {
    const p = by.get(name);
    assert.equal(p?.state, 'invalid', name);
    assert.equal(p.failures.length, 1, name);
    return p.failures[0]!;
  };
  const expected: [string, string][] = [
    ['fifo', `${fifo}: is a FIFO (named pipe), not a regular file; it is not read`],
    ['zero', `${zero}: is a character device, not a regular file; it is not read`],
    ['linked-fifo', `${linkedFifo}: is a FIFO (named pipe), not a regular file; it is not read`],
    ['huge', `${huge}: is larger than 65536 bytes, the most read of it; it is not read`],
    ['socket', `${socket}: is a socket, not a regular file; it is not read`],
  ];
  for (const [name, message] of expected) {
    const f = failure(name);
    assert.deepEqual([f.phase, f.code, f.message], ['discover', 'KW_ERR_PLUGIN_MANIFEST', message], name);
  }

  // A rescan returns too, with the same refusals.
  const again = await engine.plugins.rescan();
  assert.deepEqual(again.filter((p) => p.state === 'invalid').map((p) => p.name), ['fifo', 'huge', 'linked-fifo', 'socket', 'zero']);
});

test("package.json files that are a FIFO or a link to /dev/zero are refused by name: the plugins folder's, and a package's", async (t) => {
  const home = tempDir(t, 'kw-plug-disc-');
  const docs = fs.realpathSync(tempDir(t, 'kw-plug-docs-'));
  installExamplePackage(home, docs, 'kowalski-plugin-hello');
  const pkg = path.join(home, 'plugins', 'node_modules', 'kowalski-plugin-hello', 'package.json');
  fs.rmSync(pkg);
  fs.symlinkSync('/dev/zero', pkg);
  const engine = await testEngine(t, {}, home);
  const [one] = engine.plugins.list();
  assert.deepEqual([one?.name, one?.state, one?.failures[0]?.code, one?.failures[0]?.message],
    ['kowalski-plugin-hello', 'invalid', 'KW_ERR_PLUGIN_MANIFEST', `${fs.realpathSync(path.dirname(pkg))}/package.json: is a character device, not a regular file; it is not read`]);

  const list = path.join(home, 'plugins', 'package.json');
  fs.rmSync(list);
  mkfifo(list);
  const [top] = await engine.plugins.rescan();
  assert.deepEqual([top?.name, top?.failures[0]?.phase, top?.failures[0]?.code, top?.failures[0]?.message],
    ['(plugins package.json)', 'discover', 'KW_ERR_PLUGIN_MANIFEST', `${list}: is a FIFO (named pipe), not a regular file; it is not read`]);
});
