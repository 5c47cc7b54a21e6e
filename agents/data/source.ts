/**
 * A data source: the root folder's spreadsheets as tables, kept current. Every call first
 * checks the root cheaply (the list of data files, each one's size and mtime); when
 * anything changed, a fresh locked snapshot is loaded and swapped in and the old one
 * closed. Calls are served one at a time (DuckDB gets one connection; a reload must not
 * race a query).
 */
import { realpath, stat } from 'node:fs/promises';
import { KowalskiError } from '../../core/index.js';
import type { DescribeTableResult, ListTablesResult, QueryResult } from '../data-types.js';
import { expandHome } from '../tools/file-root.js';
import { discover } from './discover.js';
import type { DiscoverLimits } from './discover.js';
import { profileColumns } from './profile.js';
import { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS, clampRows, runQuery } from './query.js';
import { buildSnapshot, closeSnapshot } from './snapshot.js';
import type { Snapshot } from './snapshot.js';

export interface DataSourceOptions {
  /** The folder whose spreadsheets are served: absolute, relative to the working directory, or `~/…`. */
  root: string;
  /** Milliseconds a query (or a describe) may run before it is interrupted (default 30,000). */
  queryTimeoutMs?: number;
  /** Bytes of row JSON a query returns at most (default 2 MiB). */
  maxResultBytes?: number;
  /** Bounds of the walk under the root (defaults: 500 files, 20,000 entries, 16 levels). */
  limits?: DiscoverLimits;
}

/** What `openDataSource` gives: the three tools' answers, in process. */
export interface DataSource {
  /** The real path of the root. */
  readonly root: string;
  listTables(): Promise<ListTablesResult>;
  describeTable(name: string): Promise<DescribeTableResult>;
  /** `maxRows`: default 1,000, at most 10,000. */
  querySql(sql: string, maxRows?: number): Promise<QueryResult>;
  close(): Promise<void>;
}

async function resolveRoot(root: string): Promise<string> {
  let real: string;
  try {
    real = await realpath(expandHome(root));
  } catch {
    throw new KowalskiError('KW_ERR_DATA_ROOT', `the data root ${JSON.stringify(root)} does not exist`);
  }
  if (!(await stat(real)).isDirectory()) throw new KowalskiError('KW_ERR_DATA_ROOT', `the data root ${JSON.stringify(root)} is not a folder`);
  return real;
}

class Source implements DataSource {
  private snapshot: Snapshot | null = null;
  private queue: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(readonly root: string, private readonly options: DataSourceOptions) {}

  /** Run `fn` after every call before it has finished, on a current snapshot. */
  private serial<T>(fn: (s: Snapshot) => Promise<T>): Promise<T> {
    const run = this.queue.then(async () => {
      if (this.closed) throw new KowalskiError('KW_ERR_DATA_ROOT', 'the data source is closed');
      return fn(await this.current());
    });
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async current(): Promise<Snapshot> {
    const found = await discover(this.root, this.options.limits);
    if (this.snapshot !== null && this.snapshot.fingerprint === found.fingerprint) return this.snapshot;
    const fresh = await buildSnapshot(found);
    const old = this.snapshot;
    this.snapshot = fresh;
    if (old !== null) await closeSnapshot(old);
    return fresh;
  }

  /** Load the first snapshot now, so a broken root fails at open rather than at the first call. */
  async start(): Promise<void> {
    await this.serial(async () => undefined);
  }

  listTables(): Promise<ListTablesResult> {
    return this.serial(async (s) => ({ tables: [...s.tables.values()].map((t) => ({ ...t.info })), skipped: s.skipped.map((k) => ({ ...k })) }));
  }

  describeTable(name: string): Promise<DescribeTableResult> {
    return this.serial(async (s) => {
      const table = s.tables.get(name) ?? s.tables.get(name.toLowerCase());
      if (table === undefined) {
        const names = [...s.tables.keys()];
        throw new KowalskiError('KW_ERR_DATA_TABLE_UNKNOWN', `no table named ${JSON.stringify(name)}; the tables are: ${names.length === 0 ? '(none)' : names.join(', ')}`);
      }
      const limit = this.options.queryTimeoutMs ?? DEFAULT_TIMEOUT_MS;
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        s.conn.interrupt();
      }, limit);
      try {
        const columns = await profileColumns(s.conn, table.info.name, table.columns, table.info.rowCount);
        return { table: { ...table.info }, columns, notes: [...table.notes] };
      } catch (err) {
        if (timedOut) throw new KowalskiError('KW_ERR_DATA_TIMEOUT', `describing ${table.info.name} took longer than ${limit / 1000} s and was interrupted`, { cause: err });
        throw err;
      } finally {
        clearTimeout(timer);
      }
    });
  }

  querySql(sql: string, maxRows?: number): Promise<QueryResult> {
    return this.serial((s) => runQuery(s.conn, sql, {
      maxRows: clampRows(maxRows),
      maxBytes: this.options.maxResultBytes ?? DEFAULT_MAX_BYTES,
      timeoutMs: this.options.queryTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    }));
  }

  async close(): Promise<void> {
    await this.queue;
    this.closed = true;
    const s = this.snapshot;
    this.snapshot = null;
    if (s !== null) await closeSnapshot(s);
  }
}

/** Open the root's spreadsheets as tables (loaded now; reloaded when files change). */
export async function openDataSource(options: DataSourceOptions): Promise<DataSource> {
  const source = new Source(await resolveRoot(options.root), options);
  await source.start();
  return source;
}
