/**
 * Open the engine's SQLite database: WAL, the configured synchronous level, the
 * migrations. A damaged file refuses to open with a message that says what to do and
 * changes nothing; a file from a newer kowalski refuses too.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { KowalskiError, messageOf } from '../../core/index.js';
import { systemClock } from '../base/clock.js';
import type { Clock } from '../base/clock.js';
import { MIGRATIONS } from '../schema/index.js';
import type { Migration } from '../schema/index.js';
import { checkRecorded } from './migration-check.js';

export type Synchronous = 'full' | 'normal';

export interface OpenOptions {
  /** `full` (default): every commit reaches the disk before it returns. `normal`: faster; a power loss may lose the last commits (never corrupts). */
  synchronous?: Synchronous;
  /** Check every page before use (reads the whole file); default off: the header, schema and migrations are read. */
  integrityCheck?: boolean;
  migrations?: readonly Migration[];
  /** Stamps `schema_migrations.applied_at` (default: the system clock). */
  clock?: Clock;
  /** Told which migrations this open applied (none: the file was current), for `kowalski migrate`. */
  onMigrated?: (applied: readonly Migration[]) => void;
}

const SQLITE_DAMAGED = new Set(['SQLITE_CORRUPT', 'SQLITE_NOTADB', 'SQLITE_CORRUPT_VTAB', 'SQLITE_CORRUPT_SEQUENCE', 'SQLITE_CORRUPT_INDEX']);

function damaged(file: string, detail: string, cause?: unknown): KowalskiError {
  return new KowalskiError(
    'KW_ERR_STORE_CORRUPT',
    `the database ${file} is damaged (${detail}). Nothing was changed or deleted. ` +
      `Stop kowalski, copy the whole data folder somewhere safe, then either recover it with ` +
      `\`sqlite3 ${file} ".recover" | sqlite3 recovered.sqlite\` and put recovered.sqlite in its place, ` +
      `or move ${file} (and its -wal and -shm files) aside to start with an empty history.`,
    { cause, where: { file } },
  );
}

export function openDatabase(file: string, options: OpenOptions = {}): Db {
  const existed = fs.existsSync(file);
  let db: Db;
  try {
    db = new Database(file, { fileMustExist: false });
  } catch (err) {
    throw damaged(file, messageOf(err), err);
  }
  try {
    // First: another process opening the same file at the same time is waited for, not an error.
    db.pragma('busy_timeout = 5000');
    switchToWal(db);
    db.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
    db.pragma('foreign_keys = ON');
    // Checkpoints run off the commit path (see checkpointer.ts), never inside a commit.
    db.pragma('wal_autocheckpoint = 0');
    if (existed && options.integrityCheck === true) {
      // A whole-file check reads every page: on request only (start-up reads the schema and
      // the unfinished runs, which fails loudly on a damaged header, schema or index).
      const rows = db.pragma('integrity_check', { simple: false }) as { integrity_check?: string }[];
      const verdict = rows[0]?.integrity_check ?? 'ok';
      if (verdict !== 'ok') throw damaged(file, verdict);
    }
    const applied = migrate(db, file, options.migrations ?? MIGRATIONS, options.clock ?? systemClock);
    options.onMigrated?.(applied);
    return db;
  } catch (err) {
    db.close();
    if (err instanceof KowalskiError) throw err;
    const code = (err as { code?: string }).code;
    if (code !== undefined && SQLITE_DAMAGED.has(code)) throw damaged(file, `${code}: ${messageOf(err)}`, err);
    throw err;
  }
}

/** Waits between tries of the switch to WAL while another connection holds the file (up to ~5 s in all). */
const WAL_SWITCH_TRIES = 1000;
const WAL_SWITCH_WAIT_MS = 5;

/**
 * `journal_mode = WAL`, retried while another process holds the file: SQLite answers that
 * switch with SQLITE_BUSY at once, without its busy handler (two engines opening a fresh
 * file together hit it). Opening is synchronous, so the wait blocks, bounded.
 */
function switchToWal(db: Db): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (let tries = 1; ; tries++) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || tries >= WAL_SWITCH_TRIES) throw err;
      Atomics.wait(pause, 0, 0, WAL_SWITCH_WAIT_MS);
    }
  }
}

/**
 * Apply what is missing, in one transaction that holds the write lock (BEGIN IMMEDIATE) from
 * reading what is recorded to recording the last one: two processes migrating the same file
 * at once apply each migration once (the second waits, then finds nothing to do). Running it
 * twice changes nothing. Refuses a database recorded by a newer build, or one that recorded
 * another migration under a number this build uses; a migration the rows break
 * (a constraint) is rolled back with a coded error. Returns the migrations it applied.
 */
export function migrate(db: Db, file: string, migrations: readonly Migration[], clock: Clock = systemClock): Migration[] {
  return db.transaction(() => {
    db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
    const recorded = db.prepare('SELECT version, name FROM schema_migrations ORDER BY version').all() as { version: number; name: string }[];
    checkRecorded(recorded, migrations, file, file);
    const applied = new Set(recorded.map((r) => r.version));
    const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
    const done: Migration[] = [];
    for (const m of migrations) {
      if (applied.has(m.version)) continue;
      try {
        db.exec(m.sql);
      } catch (err) {
        const code = (err as { code?: string }).code ?? '';
        if (!code.startsWith('SQLITE_CONSTRAINT')) throw err;
        throw new KowalskiError(
          'KW_ERR_STORE_MIGRATION_FAILED',
          `migration ${String(m.version).padStart(3, '0')}_${m.name} cannot be applied to ${file}: a row breaks it (${messageOf(err)}). ` +
            `Nothing was changed; this kowalski will not start on that file. Find the row with sqlite3, or keep using the previous kowalski, and report it.`,
          { cause: err, where: { file } },
        );
      }
      record.run(m.version, m.name, clock.now());
      done.push(m);
    }
    return done;
  }).immediate();
}
