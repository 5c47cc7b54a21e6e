/**
 * The background checkpointer never makes a commit fail, and it keeps the WAL bounded.
 * Before, the checkpoint thread ran `wal_checkpoint(TRUNCATE)` itself: it then held the
 * write lock against the engine's connection, and a commit could fail with SQLITE_BUSY,
 * which stops the engine. Timing decided it; a sampling profiler in the child
 * (`--cpu-prof`, as `bench/profile-w1` uses) made it happen within seconds every time.
 * The WAL is started over (a pause of a few ms in the engine) rather than truncated (tens
 * of ms) whenever the writer leaves the checkpoints room, as the engine does.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import test from 'node:test';
import { cleanups } from '../../testkit/cleanup.js';
import { REPO } from '../../testkit/cli.js';
import { tempDir } from '../../testkit/tmp.js';

interface WriterResult { commits: number; refused: string | null; restarts: number; truncations: number; walBytesWriting: number; walBytes: number; truncatedPast: number; errors: string[] }

/** The writer child for `ms`, the thread checkpointing every `intervalMs`, `paceMs` between commits (0: back to back), a reader holding the WAL for the first `readerMs`. */
function runWriter(dir: string, t: Parameters<typeof cleanups>[0], ms: number, intervalMs: number, paceMs: number, readerMs = 0): Promise<WriterResult> {
  const child = spawn(process.execPath, [
    '--import', 'tsx', '--cpu-prof', `--cpu-prof-dir=${path.join(dir, 'profiles')}`,
    path.join(REPO, 'test', 'support', 'wal-writer.ts'), path.join(dir, 'kowalski.sqlite'), String(ms), String(intervalMs), String(paceMs), String(readerMs),
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

test('commits back to back while the WAL is checkpointed, started over and truncated: none is refused, and the WAL stays small', { timeout: 120_000 }, async (t) => {
  const dir = tempDir(t);
  const r = await runWriter(dir, t, 6000, 1, 0);
  assert.equal(r.refused, null, `a commit was refused after ${r.commits} commits (${r.refused})`);
  assert.deepEqual(r.errors, []);
  assert.ok(r.commits > 1000, `the writer committed (${r.commits})`);
  // The writer leaves the thread no room, and a busy disk can hold one of its passes up for
  // most of a second: some of the WAL's cycles end in a restart, others in the truncation
  // that guards it.
  assert.ok(r.restarts + r.truncations > 0, `the WAL was started over (${r.restarts}) or truncated (${r.truncations})`);
  // No longer than where the engine truncates it, once the writer stops.
  assert.ok(r.walBytes <= r.truncatedPast, `the WAL came back down: ${r.walBytes} bytes after ${r.commits} commits (${r.walBytesWriting} when they stopped)`);
});

test('commits a millisecond apart, as the engine\'s: the engine\'s connection starts the WAL over as it grows long', { timeout: 120_000 }, async (t) => {
  const dir = tempDir(t);
  const r = await runWriter(dir, t, 3000, 10, 1);
  assert.equal(r.refused, null, `a commit was refused after ${r.commits} commits (${r.refused})`);
  assert.deepEqual(r.errors, []);
  // The thread never quite catches up with commits this close, so SQLite alone would not
  // start the WAL over: the engine's connection finishes the checkpoint between two of them.
  assert.ok(r.restarts > 0, `the WAL was started over (${r.restarts} times in ${r.commits} commits; truncated ${r.truncations} times)`);
  assert.ok(r.walBytes <= r.truncatedPast, `the WAL file stayed small: ${r.walBytes} bytes`);
});

test('a reader (another connection, as `kowalski history` in another process) holds the WAL past the last commit: once it lets go, the engine truncates the long WAL, though nothing is committed', { timeout: 120_000 }, async (t) => {
  const dir = tempDir(t);
  const r = await runWriter(dir, t, 1500, 10, 1, 2500);
  assert.equal(r.refused, null, `a commit was refused after ${r.commits} commits (${r.refused})`);
  assert.deepEqual(r.errors, []);
  assert.ok(r.walBytesWriting > r.truncatedPast, `the reader kept the WAL from being started over: ${r.walBytesWriting} bytes`);
  assert.ok(r.truncations > 0, 'the WAL was truncated');
  assert.ok(r.walBytes <= r.truncatedPast, `the WAL came back down: ${r.walBytes} bytes`);
});
