/**
 * The two ends a store copy reads from and writes to, SQLite and Postgres, behind one
 * small interface: count a table, read a page of it in key order after the last key seen
 * (so memory stays bounded however large the store), insert a chunk, and one transaction.
 * Values pass through untouched: JSON columns stay the text they were. Derived data is
 * not copied: the episodic memory's index is made again from the copied chat log at the end.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { CopyRow, CopyTable } from './copy-tables.js';
import { COMMIT_LOCK } from './pg/session.js';
import { REBUILD_CHAT_RECALL } from './pg/sql/recall.js';
import type { SyncPg } from './pg/sync-pg.js';
import { REBUILD_CHAT_FTS } from './sql/recall.js';

export interface CopyEnd {
  readonly kind: 'sqlite' | 'postgres';
  /** For messages: the file, or host:port/database. */
  readonly where: string;
  count(table: CopyTable): number;
  /** Up to `limit` rows ordered by `order` (unique columns), after the row `after` (undefined: from the first). */
  page(table: CopyTable, order: readonly string[], after: CopyRow | undefined, limit: number): CopyRow[];
  insert(table: CopyTable, rows: readonly CopyRow[]): void;
  /** Inside the writing transaction, after every row is in: new rows must get keys past the copied ones; the derived index is made from the copied rows. */
  settle(tables: readonly CopyTable[]): void;
  /**
   * `fn` in one transaction. `read`: a consistent snapshot of every table for the whole copy.
   * `write`: all or nothing; on Postgres it takes the commit-order lock, so no node commits meanwhile.
   */
  transaction<T>(mode: 'read' | 'write', fn: () => T): T;
}

const list = (names: readonly string[]) => names.join(', ');
/** A table's columns, quoted: `note_writes` has a column named `by` (a reserved word in Postgres). */
const columnList = (t: CopyTable) => t.columns.map((c) => `"${c.name}"`).join(', ');

export function sqliteCopyEnd(db: Database, where: string): CopyEnd {
  const statements = new Map<string, Statement>();
  const prepared = (sql: string): Statement => {
    let s = statements.get(sql);
    if (s === undefined) {
      s = db.prepare(sql);
      statements.set(sql, s);
    }
    return s;
  };
  return {
    kind: 'sqlite',
    where,
    count: (t) => prepared(`SELECT count(*) FROM ${t.name}`).pluck().get() as number,
    page(t, order, after, limit) {
      const cols = columnList(t);
      if (after === undefined) return prepared(`SELECT ${cols} FROM ${t.name} ORDER BY ${list(order)} LIMIT ?`).all(limit) as CopyRow[];
      const sql = `SELECT ${cols} FROM ${t.name} WHERE (${list(order)}) > (${list(order.map(() => '?'))}) ORDER BY ${list(order)} LIMIT ?`;
      return prepared(sql).all(...order.map((k) => after[k]), limit) as CopyRow[];
    },
    insert(t, rows) {
      const insert = prepared(`INSERT INTO ${t.name} (${columnList(t)}) VALUES (${list(t.columns.map(() => '?'))})`);
      for (const row of rows) insert.run(...t.columns.map((c) => row[c.name]));
    },
    // Keys need nothing (an INTEGER PRIMARY KEY takes max + 1 by itself); the recall index is made from the copied log.
    settle: () => void db.exec(REBUILD_CHAT_FTS),
    // A write's links between rows (a vault write and the revert that undid it, copied before it) are checked at the commit.
    transaction: (mode, fn) => (mode === 'write' ? db.transaction(() => {
      db.pragma('defer_foreign_keys = ON');
      return fn();
    }).immediate() : db.transaction(fn).deferred()),
  };
}

export function pgCopyEnd(pg: SyncPg, where: string): CopyEnd {
  return {
    kind: 'postgres',
    where,
    count: (t) => pg.get<{ n: number }>(`SELECT count(*) AS n FROM ${t.name}`)!.n,
    page(t, order, after, limit) {
      const cols = columnList(t);
      if (after === undefined) return pg.all<CopyRow>(`SELECT ${cols} FROM ${t.name} ORDER BY ${list(order)} LIMIT $1`, [limit]);
      const sql = `SELECT ${cols} FROM ${t.name} WHERE (${list(order)}) > (${list(order.map((_, i) => `$${i + 1}`))}) ORDER BY ${list(order)} LIMIT $${order.length + 1}`;
      return pg.all<CopyRow>(sql, [...order.map((k) => after[k]), limit]);
    },
    insert(t, rows) {
      // One statement per chunk, each column as one array parameter: the same text for every chunk, so it is planned once.
      const arrays = t.columns.map((c, i) => `$${i + 1}::${c.pg}[]`);
      const overriding = t.identity === undefined ? '' : ' OVERRIDING SYSTEM VALUE';
      pg.run(
        `INSERT INTO ${t.name} (${columnList(t)})${overriding} SELECT * FROM unnest(${list(arrays)})`,
        t.columns.map((c) => rows.map((r) => r[c.name] ?? null)),
      );
    },
    settle(tables) {
      for (const t of tables) {
        if (t.identity === undefined) continue;
        pg.get(`SELECT setval(pg_get_serial_sequence($1, $2), (SELECT coalesce(max(${t.identity}), 0) + 1 FROM ${t.name}), false)`, [t.name, t.identity]);
      }
      pg.run(REBUILD_CHAT_RECALL);
    },
    transaction(mode, fn) {
      return pg.transaction(() => {
        if (mode === 'read') pg.run('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        else pg.get('SELECT pg_advisory_xact_lock($1::bigint)', [COMMIT_LOCK]);
        return fn();
      })();
    },
  };
}
