/**
 * One engine per data directory. The lock is an exclusive SQLite lock on
 * `kowalski.lock`, held for the life of the engine: the operating system drops it
 * when the process dies (kill -9 included), so a crash never leaves a stale lock.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { KowalskiError } from '../../core/index.js';
import { writeFileAtomic } from '../../steps/index.js';

export interface DataDirLock {
  readonly dir: string;
  /** Record where a server listens, so the CLI can find it (set once it is listening). */
  setUrl(url: string): void;
  release(): void;
}

export interface LockOwner {
  pid: number;
  startedAt: number;
  /** Set by a server, so a CLI can find it. */
  url?: string;
}

export function lockDataDir(dir: string, owner: LockOwner): DataDirLock {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const lockFile = path.join(dir, 'kowalski.lock');
  const ownerFile = path.join(dir, 'kowalski.owner.json');
  const db = new Database(lockFile);
  try {
    db.pragma('busy_timeout = 0');
    db.pragma('journal_mode = DELETE');
    db.exec('BEGIN EXCLUSIVE');
  } catch (err) {
    db.close();
    const code = (err as { code?: string }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
      const who = readOwner(dir);
      const by = who === undefined ? 'another process' : `process ${who.pid}${who.url === undefined ? '' : ` (serving ${who.url})`}, started ${new Date(who.startedAt).toISOString()}`;
      throw new KowalskiError(
        'KW_ERR_DATA_DIR_LOCKED',
        `another kowalski engine is using ${dir}: ${by}. Stop it first, or point KOWALSKI_HOME at another folder.`,
        { where: { file: lockFile } },
      );
    }
    throw err;
  }
  fs.writeFileSync(ownerFile, JSON.stringify(owner), { mode: 0o600 });
  let released = false;
  return {
    dir,
    setUrl(url) {
      writeFileAtomic(ownerFile, JSON.stringify({ ...owner, url }), { mode: 0o600 });
    },
    release() {
      if (released) return;
      released = true;
      try {
        fs.rmSync(ownerFile, { force: true });
      } finally {
        db.exec('ROLLBACK');
        db.close();
      }
    },
  };
}

/** Who holds the data directory, if anyone says so (informational: the lock itself is the truth). */
export function readOwner(dir: string): LockOwner | undefined {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'kowalski.owner.json'), 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
}

/** The live server this data folder's owner file names on `port`, if any (an owner file that outlived its process, a killed one, names none). */
export function liveServerOf(dir: string, port: number): { pid: number; url: string } | undefined {
  const owner = readOwner(dir);
  if (owner?.url === undefined) return undefined;
  try {
    if (new URL(owner.url).port !== String(port)) return undefined;
  } catch {
    return undefined;
  }
  try {
    process.kill(owner.pid, 0);
  } catch (err) {
    // EPERM: alive, another user's
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  return { pid: owner.pid, url: owner.url };
}
