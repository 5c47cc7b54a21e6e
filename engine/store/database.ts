/**
 * Open the engine's SQLite database: WAL, the configured synchronous level, the
 * migrations. A damaged file refuses to open with a message that says what to do and
 * changes nothing; a file from a newer kowalski refuses too.
 */
import fs from 'node:fs';
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import { KowalskiError } from '../../core/index.js';
import { MIGRATIONS } from '../schema/index.js';
import type { Migration } from '../schema/index.js';

export type Synchronous = 'full' | 'normal';

export interface OpenOptions {
  /** `full` (default): every commit reaches the disk before it returns. `normal`: faster; a power loss may lose the last commits (never corrupts). */
  synchronous?: Synchronous;
  /** Check every page before use (reads the whole file); default off: the header, schema and migrations are read. */
  integrityCheck?: boolean;
  migrations?: readonly Migration[];
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
    throw damaged(file, (err as Error).message, err);
  }
  try {
    db.pragma('journal_mode = WAL');
    db.pragma(`synchronous = ${options.synchronous === 'normal' ? 'NORMAL' : 'FULL'}`);
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    // Checkpoints run off the commit path (see checkpointer.ts), never inside a commit.
    db.pragma('wal_autocheckpoint = 0');
    if (existed && options.integrityCheck === true) {
      // A whole-file check reads every page: on request only (start-up reads the schema and
      // the unfinished runs, which fails loudly on a damaged header, schema or index).
      const rows = db.pragma('integrity_check', { simple: false }) as { integrity_check?: string }[];
      const verdict = rows[0]?.integrity_check ?? 'ok';
      if (verdict !== 'ok') throw damaged(file, verdict);
    }
    migrate(db, file, options.migrations ?? MIGRATIONS);
    return db;
  } catch (err) {
    db.close();
    if (err instanceof KowalskiError) throw err;
    const code = (err as { code?: string }).code;
    if (code !== undefined && SQLITE_DAMAGED.has(code)) throw damaged(file, `${code}: ${(err as Error).message}`, err);
    throw err;
  }
}

/** Apply what is missing, each migration in its own transaction. Running it twice changes nothing. */
export function migrate(db: Db, file: string, migrations: readonly Migration[]): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)');
  const applied = new Set((db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]));
  const newest = Math.max(0, ...applied);
  if (newest > migrations.length) {
    throw new KowalskiError(
      'KW_ERR_STORE_TOO_NEW',
      `the database ${file} was written by a newer kowalski (schema ${newest}; this one knows ${migrations.length}). Upgrade kowalski; nothing was changed.`,
      { where: { file } },
    );
  }
  const record = db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)');
  for (const m of migrations) {
    if (applied.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      record.run(m.version, m.name, Date.now());
    })();
  }
}
