/**
 * The run store's Postgres connection as the typed functions use it. A transaction is
 * two hops to the server, whatever it writes: at its start `BEGIN`, the commit-order lock
 * and the newest global sequence number; at its end every write it made, then `COMMIT`, in
 * one batch. Writes whose result nobody reads wait in the batch; a read (or a write whose
 * row count is read) first sends what waits, so it sees the transaction's own writes.
 *
 * Rows written through a `Bulk` (the event log and the projections: many per commit) are
 * gathered by kind and sent as one `unnest` statement per kind, kinds in the order of
 * their `rank`: a group commit of fifty runs' steps is a handful of statements, not two
 * hundred. Rows of different kinds commute when they touch different rows; on one row
 * the ranks follow its life (an attempt is started before it is finished, a run inserted
 * before it is settled), so the order of the commit is kept where it matters.
 *
 * The commit-order lock (a transaction-scoped advisory lock) makes commits of every node
 * take turns, so global sequence numbers are given out in commit order and a reader that
 * follows the log by `gseq` never passes an event a later commit fills in below it.
 */
import { KowalskiError } from '../../../core/index.js';
import { CHANNELS } from './channels.js';
import type { SyncPg } from './sync-pg.js';

/** The advisory lock key every committing transaction takes (any fixed 64-bit number; "kowalski" in ASCII). */
export const COMMIT_LOCK = 0x6b6f77616c736b69n.toString();

interface Statement {
  sql: string;
  params?: readonly unknown[];
}

/**
 * One kind of row write that goes in bulk: `sql` takes one array parameter per column
 * (`unnest($1::text[], …)`), and a row is the column values in that order.
 */
export interface Bulk {
  /** Order of the kinds in a commit (lower first). */
  readonly rank: number;
  readonly sql: string;
  /** Rows with the same key: only the last is written (an UPDATE must not meet one row twice). */
  readonly key?: (row: readonly unknown[]) => string;
}

/** The columns of `rows` as arrays: the parameters of a bulk statement. */
function columns(rows: ReadonlyArray<readonly unknown[]>): unknown[][] {
  const width = rows[0]!.length;
  const cols: unknown[][] = Array.from({ length: width }, () => new Array<unknown>(rows.length));
  rows.forEach((row, i) => {
    for (let c = 0; c < width; c++) cols[c]![i] = row[c];
  });
  return cols;
}

function bulkStatement(bulk: Bulk, rows: ReadonlyArray<readonly unknown[]>): Statement {
  let kept = rows;
  if (bulk.key !== undefined && rows.length > 1) {
    const last = new Map<string, readonly unknown[]>();
    for (const row of rows) {
      const k = bulk.key(row);
      last.delete(k);
      last.set(k, row);
    }
    kept = [...last.values()];
  }
  return { sql: bulk.sql, params: columns(kept) };
}

export class PgSession {
  /** The writes of the running transaction, not yet sent; undefined outside a transaction. */
  private pending: Statement[] | undefined;
  /** The bulk rows of the running transaction, by kind. */
  private bulks = new Map<Bulk, Array<readonly unknown[]>>();
  private gseq = 0;

  /**
   * @param logTag When set, a transaction that appends events also notifies the log's
   * channel (store/pg/listener.ts) with this tag (the node's id), delivered at its commit.
   */
  constructor(readonly pg: SyncPg, private readonly logTag?: string) {}

  /** A write whose result is not read: inside a transaction it goes with the commit. */
  write(sql: string, params?: readonly unknown[]): void {
    if (this.pending !== undefined) this.pending.push(params === undefined ? { sql } : { sql, params });
    else this.pg.run(sql, params);
  }

  /** A row write of a bulk kind: inside a transaction it goes with the others of its kind, at the commit. */
  writeRow(bulk: Bulk, row: readonly unknown[]): void {
    if (this.pending === undefined) {
      this.pg.run(bulk.sql, columns([row]));
      return;
    }
    const rows = this.bulks.get(bulk);
    if (rows === undefined) this.bulks.set(bulk, [row]);
    else rows.push(row);
  }

  /** A write whose row count is read. */
  count(sql: string, params?: readonly unknown[]): number {
    this.send();
    return this.pg.run(sql, params);
  }

  all<R>(sql: string, params?: readonly unknown[]): R[] {
    this.send();
    return this.pg.all<R>(sql, params);
  }

  get<R>(sql: string, params?: readonly unknown[]): R | undefined {
    this.send();
    return this.pg.get<R>(sql, params);
  }

  /** The next global sequence number (inside a transaction, which holds the commit-order lock). */
  nextGseq(): number {
    if (this.pending === undefined) throw new KowalskiError('KW_ERR_INTERNAL', 'an event was appended outside a transaction');
    return ++this.gseq;
  }

  /** `fn` in one transaction; a call inside a running one joins it (there are no savepoints: a throw rolls back the whole). */
  transaction<A extends unknown[], T>(fn: (...args: A) => T): (...args: A) => T {
    return (...args) => {
      if (this.pending !== undefined) return fn(...args);
      try {
        const [, , , last] = this.pg.batch([
          { sql: 'BEGIN' },
          // A bulk write meets a few rows of a large table: through its primary key, never a scan of the whole
          // (a table the planner has no statistics for yet, a fresh one, looks small enough to scan).
          { sql: "SELECT set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true)" },
          { sql: 'SELECT pg_advisory_xact_lock($1::bigint)', params: [COMMIT_LOCK] },
          { sql: 'SELECT coalesce(max(gseq), 0) AS g FROM events' },
        ]);
        this.gseq = (last as Array<{ g: number }>)[0]!.g;
      } catch (err) {
        this.rollback();
        throw err;
      }
      this.pending = [];
      const firstGseq = this.gseq;
      let result: T;
      try {
        result = fn(...args);
        const writes = [...this.pending, ...this.takeBulks()];
        this.pending = undefined;
        if (this.logTag !== undefined && this.gseq > firstGseq) writes.push({ sql: `SELECT pg_notify('${CHANNELS.log}', $1)`, params: [this.logTag] });
        this.pg.batch([...writes, { sql: 'COMMIT' }]);
      } catch (err) {
        this.pending = undefined;
        this.bulks.clear();
        this.rollback();
        throw err;
      }
      return result;
    };
  }

  /** What waits goes now (a read must see it). */
  private send(): void {
    if (this.pending === undefined) return;
    const writes = [...this.pending, ...this.takeBulks()];
    if (writes.length === 0) return;
    this.pending = [];
    this.pg.batch(writes);
  }

  /** The bulk rows gathered so far as statements, in rank order. */
  private takeBulks(): Statement[] {
    if (this.bulks.size === 0) return [];
    const kinds = [...this.bulks].sort(([a], [b]) => a.rank - b.rank);
    this.bulks = new Map();
    return kinds.map(([bulk, rows]) => bulkStatement(bulk, rows));
  }

  private rollback(): void {
    try {
      this.pg.run('ROLLBACK');
    } catch {
      // The connection is gone: the server rolled the transaction back itself.
    }
  }
}
