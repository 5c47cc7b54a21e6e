/**
 * The floors the engine's numbers are divided by, measured in the same run on the same
 * disk: one better-sqlite3 insert + commit per step (WAL, a fresh file), and the bare
 * cost of the processes a verify step must start.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Sync } from './setup.js';
import { removeDir, tempDir } from './setup.js';
import { now } from './stats.js';

/** An event-sized row (~300 bytes of JSON), as the engine writes per step. */
const BODY = JSON.stringify({ type: 'step.finished', step: 's3', attempt: 1, outcome: 'pass', durationMs: 1, summary: 'x'.repeat(200) });

/** µs per commit: `commits` autocommitted inserts into a fresh WAL file at `synchronous`. */
export function commitFloor(synchronous: Sync, commits: number): number {
  const dir = tempDir('floor');
  try {
    const db = new Database(path.join(dir, 'floor.sqlite'));
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${synchronous === 'full' ? 'FULL' : 'NORMAL'}`);
    // Like the engine: no checkpoint inside a commit.
    db.pragma('wal_autocheckpoint = 0');
    db.exec('CREATE TABLE events (run_id TEXT NOT NULL, seq INTEGER NOT NULL, at INTEGER NOT NULL, body TEXT NOT NULL, PRIMARY KEY (run_id, seq))');
    const insert = db.prepare('INSERT INTO events (run_id, seq, at, body) VALUES (?, ?, ?, ?)');
    for (let i = 0; i < 20; i++) insert.run('warmup', i, Date.now(), BODY);
    const t0 = now();
    for (let i = 0; i < commits; i++) insert.run(`r${Math.floor(i / 6)}`, i % 6, Date.now(), BODY);
    const us = ((now() - t0) * 1000) / commits;
    db.close();
    return us;
  } finally {
    removeDir(dir);
  }
}

function runTrue(): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('/bin/sh', ['-c', 'true'], { stdio: 'ignore' });
    child.once('error', reject);
    child.once('exit', () => resolve());
  });
}

/** ms to start `n` `/bin/sh -c true` processes, all at once, and see every one exit. */
export async function shellFloor(n: number): Promise<number> {
  const t0 = now();
  await Promise.all(Array.from({ length: n }, () => runTrue()));
  return now() - t0;
}
