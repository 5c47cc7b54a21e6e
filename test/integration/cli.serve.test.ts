/** `kowalski serve` as a person starts it: it says where it listens, and a taken port is a clear error. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import path from 'node:path';
import { cli, cliSandbox, outputOf, startCli } from '../../testkit/cli.js';
import { cleanups } from '../../testkit/cleanup.js';
import { freePort } from '../../testkit/free-port.js';

test('a port already in use is a usage error naming the port and what to do (exit 2), not a crash, and creates no data folder', async (t) => {
  const { home } = cliSandbox(t);
  const taken = net.createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  cleanups(t)(() => new Promise<void>((resolve) => taken.close(() => resolve())));
  const port = (taken.address() as AddressInfo).port;
  const r = await cli(home, ['serve', '--no-open', '--port', String(port)]);
  assert.equal(r.code, 2, outputOf(r));
  assert.match(r.stderr, new RegExp(`cannot listen on 127\\.0\\.0\\.1:${port}: port ${port} is already in use .* choose another with --port \\[KW_ERR_LISTEN\\]`));
  assert.equal(fs.existsSync(home), false, 'the new data folder was not created');
  const bad = await cli(home, ['serve', '--no-open', '--port', '70000']);
  assert.equal(bad.code, 2, outputOf(bad));
  assert.match(bad.stderr, /--port must be 0–65535, not "70000" \[KW_ERR_USAGE\]/);
});

test('a second serve of the same data folder on its port names the server already there; a hand edit of config.toml is read again by the running server', async (t) => {
  const { home } = cliSandbox(t);
  const port = await freePort();
  const first = startCli(home, ['serve', '--no-open', '--port', String(port)]);
  cleanups(t)(async () => {
    first.child.kill('SIGTERM');
    await first.exited;
  });
  await first.stderrLine(/^kowalski serving /);

  const second = await cli(home, ['serve', '--no-open', '--port', String(port)]);
  assert.equal(second.code, 2, outputOf(second));
  assert.equal(second.stderr.trim(), `kowalski: kowalski already serves ${home} at http://127.0.0.1:${port}/ (process ${first.child.pid}): \`kowalski open\` signs you in to it; stop it first to start another [KW_ERR_LISTEN]`);

  fs.writeFileSync(path.join(home, 'config.toml'), '[model]\ndefault = "ollama:qwen2.5:7b"\n', { mode: 0o600 });
  const line = await first.stderrLine(/config\.toml changed/);
  assert.equal(line, `kowalski: ${path.join(home, 'config.toml')} changed and was read again (what Setup edits takes effect now; the store, adapters and run limits at the next start)`);
});
