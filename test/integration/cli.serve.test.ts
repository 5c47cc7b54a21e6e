/** `kowalski serve` as a person starts it: it says where it listens, and a taken port is a clear error. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { test } from 'node:test';
import { cli, cliSandbox, outputOf } from '../../testkit/cli.js';
import { cleanups } from '../../testkit/cleanup.js';

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
