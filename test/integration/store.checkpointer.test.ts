/**
 * The background checkpointer never makes a commit fail, and it keeps the WAL bounded.
 * Before, the checkpoint thread ran `wal_checkpoint(TRUNCATE)` itself: it then held the
 * write lock against the engine's connection, and a commit could fail with SQLITE_BUSY,
 * which stops the engine. Timing decided it; a sampling profiler in the child
 * (`--cpu-prof`, as `bench/profile-w1` uses) made it happen within seconds every time.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import test from 'node:test';
import { cleanups } from '../support/cleanup.js';
import { REPO } from '../support/cli.js';
import { tempDir } from '../support/tmp.js';

interface WriterResult { commits: number; refused: string | null; truncations: number; walBytes: number; errors: string[] }

function runWriter(dir: string, ms: number, t: Parameters<typeof cleanups>[0]): Promise<WriterResult> {
  const child = spawn(process.execPath, [
    '--import', 'tsx', '--cpu-prof', `--cpu-prof-dir=${path.join(dir, 'profiles')}`,
    path.join(REPO, 'test', 'support', 'wal-writer.ts'), path.join(dir, 'kowalski.sqlite'), String(ms),
  ], { cwd: REPO, stdio: ['ignore', 'pipe', 'pipe'] });
  cleanups(t)(() => { child.kill('SIGKILL'); });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { err += d.toString(); });
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => {
      if (code !== 0) reject(new Error(`the writer exited ${code}: ${err}`));
      else resolve(JSON.parse(out) as WriterResult);
    });
  });
}

test('commits back to back while the WAL is checkpointed and truncated: none is refused, and the WAL stays small', { timeout: 120_000 }, async (t) => {
  const dir = tempDir(t);
  const r = await runWriter(dir, 6000, t);
  assert.equal(r.refused, null, `a commit was refused after ${r.commits} commits (${r.refused})`);
  assert.deepEqual(r.errors, []);
  assert.ok(r.commits > 1000, `the writer committed (${r.commits})`);
  assert.ok(r.truncations > 0, 'the WAL was truncated at least once');
  // Without truncation 3 rows of 400 bytes per commit make about a page per commit.
  assert.ok(r.walBytes < r.commits * 1024, `the WAL stayed bounded: ${r.walBytes} bytes after ${r.commits} commits`);
});
