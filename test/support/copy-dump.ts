/** Every row of the tables `kowalski store copy` moves, in key order, read from a SQLite file (to compare two stores row for row). */
import Database from 'better-sqlite3';
import { COPY_TABLES } from '../../engine/store/copy-tables.js';
import type { CopyRow } from '../../engine/store/copy-tables.js';

export function dumpCopiedTables(file: string): Record<string, CopyRow[]> {
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return Object.fromEntries(COPY_TABLES.map((t) => [t.name, db.prepare(`SELECT * FROM ${t.name} ORDER BY ${t.key.join(', ')}`).all() as CopyRow[]]));
  } finally {
    db.close();
  }
}
