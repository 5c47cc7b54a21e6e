/** `kowalski adapters [--json]` and `adapters enable|disable NAME`: embedded (the switch recorded, nothing started) and through a running server (started and stopped there). */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { cleanups } from '../../testkit/cleanup.js';
import { cli, cliSandbox, outputOf, startCli, stdoutJson } from '../../testkit/cli.js';
import { writeTestToken } from '../support/token.js';

const CONFIG = '[adapters.hook]\ntype = "webhook"\nsecret = "cli-test-secret-0123456789"\n';

test('kowalski adapters lists and switches adapters, embedded and through the server, never showing a secret', async (t) => {
  const { home } = cliSandbox(t);
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(home, 'config.toml'), CONFIG);
  const listed = await cli(home, ['adapters', '--json']);
  assert.equal(listed.code, 0, outputOf(listed));
  const [hook] = stdoutJson<Array<Record<string, unknown>>>(listed);
  assert.deepEqual([hook!.name, hook!.type, hook!.enabled, hook!.state, hook!.settings], ['hook', 'webhook', false, 'stopped', { secret: '(set)' }]);
  assert.ok(!listed.stdout.includes('cli-test-secret'));

  const on = await cli(home, ['adapters', 'enable', 'hook']);
  assert.equal(on.code, 0, outputOf(on));
  assert.match(on.stdout, /^hook\s+webhook\s+on\s+stopped\s+agent assistant/, 'embedded: switched on, started by the server');
  const unknown = await cli(home, ['adapters', 'enable', 'nope']);
  assert.equal(unknown.code, 2, outputOf(unknown));
  assert.match(unknown.stderr, /KW_ERR_ADAPTER_NOT_FOUND|no adapter "nope" is configured; configured: hook/);

  writeTestToken(home);
  const server = startCli(home, ['serve', '--no-open', '--port', '0'], { limitMs: 180_000 });
  cleanups(t)(async () => {
    if (server.child.exitCode === null) server.child.kill('SIGTERM');
    await server.exited.catch(() => undefined);
  });
  await server.stderrLine(/^kowalski serving /);
  const off = await cli(home, ['adapters', 'disable', 'hook', '--json']);
  assert.equal(off.code, 0, outputOf(off));
  assert.deepEqual([stdoutJson<Record<string, unknown>>(off).enabled, stdoutJson<Record<string, unknown>>(off).state], [false, 'stopped']);
  const back = await cli(home, ['adapters', 'enable', 'hook', '--json']);
  assert.deepEqual([stdoutJson<Record<string, unknown>>(back).enabled, stdoutJson<Record<string, unknown>>(back).state], [true, 'running'], 'the server started it');
  const text = await cli(home, ['adapters']);
  assert.match(text.stdout, /^hook\s+webhook\s+on\s+running\s+agent assistant\s+last activity never\s+errors 0$/m);
});
