/**
 * The `kowalski` command as npm installs it: a link to bin/kowalski, a shell that execs
 * Node on the built CLI with glibc's mmap threshold fixed (so memory freed after a large
 * upload goes back to the system).
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO } from '../../testkit/cli.js';
import { cleanups } from '../../testkit/cleanup.js';
import { tempDir } from '../../testkit/tmp.js';
import { waitUntil } from '../fixtures/steps/wait.js';

const SERVING = /kowalski serving .* at http:\/\/127\.0\.0\.1:\d+\//;

test('through a link, as npm installs it: the server is Node itself (the shell exec\'d), with MALLOC_MMAP_THRESHOLD_ set unless the user set it', async (t) => {
  const dir = tempDir(t);
  const link = path.join(dir, 'bin', 'kowalski');
  fs.mkdirSync(path.dirname(link));
  fs.symlinkSync(path.join(REPO, 'bin', 'kowalski'), link);
  for (const [given, expected] of [[undefined, '131072'], ['65536', '65536']] as const) {
    const env: NodeJS.ProcessEnv = { ...process.env, KOWALSKI_HOME: path.join(dir, `home-${expected}`) };
    delete env.MALLOC_MMAP_THRESHOLD_;
    if (given !== undefined) env.MALLOC_MMAP_THRESHOLD_ = given;
    const child = spawn(link, ['serve', '--port', '0', '--no-open'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
    cleanups(t)(() => child.kill('SIGKILL'));
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(String(code ?? signal))));
    // The sign-in link is the last line before it listens for SIGTERM.
    await waitUntil('the server says where it serves', () => SERVING.test(stderr) && /\?code=/.test(stderr), 30_000);
    assert.equal(fs.readlinkSync(`/proc/${child.pid}/exe`), process.execPath, 'the process that serves is the one spawned: node, not a shell');
    const environ = fs.readFileSync(`/proc/${child.pid}/environ`, 'utf8').split('\0');
    assert.ok(environ.includes(`MALLOC_MMAP_THRESHOLD_=${expected}`), environ.filter((v) => v.startsWith('MALLOC')).join(', '));
    child.kill('SIGTERM');
    assert.equal(await exited, '0', stderr);
  }
});
