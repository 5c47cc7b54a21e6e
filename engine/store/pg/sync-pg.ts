/**
 * A synchronous PostgreSQL connection, so the engine's store keeps the synchronous
 * contract it has with better-sqlite3 (issue 18). The async `pg` client lives in a worker
 * thread (sync-pg.worker.ts); each call posts one request and blocks this thread on
 * Atomics.wait until the worker flips a shared flag, then takes the answer with
 * receiveMessageOnPort (the synckit pattern). The thread blocks for each round trip as
 * it blocks today for each SQLite fsync: that is the accepted trade.
 *
 * Once unavailable, always unavailable: after a lost connection or a call that got no
 * answer in time, nobody knows whether its last statement (perhaps a COMMIT) was
 * applied, so the connection is closed and every later call throws
 * KW_ERR_STORE_UNAVAILABLE. The caller opens a new one.
 */
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import { KowalskiError } from '../../../core/index.js';
import { workerOf } from '../../base/modules.js';
import type { ModuleToRun } from '../../base/modules.js';

/** The longest single wait for an answer: the limit is counted in these. */
const WAIT_SLICE_MS = 100;

export interface SyncPg {
  /** Rows of one statement ($1.. parameters). */
  all<R>(sql: string, params?: readonly unknown[]): R[];
  get<R>(sql: string, params?: readonly unknown[]): R | undefined;
  /** Rows changed. */
  run(sql: string, params?: readonly unknown[]): number;
  /**
   * Several statements in ONE hop to the worker, in order, each with its params; returns
   * each one's rows. Used by the committer for a whole group commit. They are pipelined
   * (one network round trip), so a failed statement does not stop the ones after it:
   * for all or nothing, the batch is BEGIN … COMMIT or runs inside transaction(), where
   * the failure aborts the rest. The error thrown is the first failure's (`batchIndex`).
   */
  batch(statements: ReadonlyArray<Statement>): unknown[][];
  /** Multi-statement SQL without parameters (migrations). */
  exec(sql: string): void;
  /**
   * Wraps fn like better-sqlite3's db.transaction: BEGIN … COMMIT, ROLLBACK and rethrow
   * on throw; a call inside a running transaction uses a SAVEPOINT. Unlike SQLite, a
   * failed statement aborts the whole Postgres transaction: to catch one and go on, wrap
   * it in its own (nested) transaction.
   */
  transaction<A extends unknown[], T>(fn: (...args: A) => T): (...args: A) => T;
  /** Ends the connection and the worker; idempotent. */
  close(): void;
}

export interface SyncPgOptions {
  /** Longest wait for each call's answer, in ms (default 30 000). */
  timeoutMs?: number;
  /** Longest wait for the connection, starting the worker thread included, in ms (default: timeoutMs). */
  connectTimeoutMs?: number;
  /** application_name the server shows in pg_stat_activity (default 'kowalski'). */
  applicationName?: string;
  /** sync-pg.worker as the engine's own code has it (default: the module beside this one). */
  module?: ModuleToRun | undefined;
}

export interface Statement {
  sql: string;
  params?: readonly unknown[];
}

/** An error the server reported, with its SQLSTATE `code` (23505: unique violation) and, where present, detail and constraint. */
export class PostgresError extends Error {
  readonly code: string;
  readonly detail: string | undefined;
  readonly constraint: string | undefined;
  readonly table: string | undefined;
  /** Position in a `batch` of the statement that failed. */
  readonly batchIndex: number | undefined;
  constructor(wire: Extract<WireError, { kind: 'postgres' }>) {
    super(wire.message);
    this.name = 'PostgresError';
    this.code = wire.code;
    this.detail = wire.detail;
    this.constraint = wire.constraint;
    this.table = wire.table;
    this.batchIndex = wire.batchIndex;
  }
}

/** Requests to the worker; `connect` is the worker's first answer, which nobody sends. */
export type Request =
  | { type: 'query'; id: number; statement: Statement }
  | { type: 'batch'; id: number; statements: Statement[] }
  | { type: 'exec'; id: number; sql: string }
  | { type: 'close'; id: number };

export type WireError =
  | { kind: 'postgres'; message: string; code: string; detail?: string; constraint?: string; table?: string; batchIndex?: number }
  | { kind: 'unavailable'; message: string }
  | { kind: 'other'; name: string; message: string };

export type Reply = { id: number; ok: true; value: unknown } | { id: number; ok: false; error: WireError };

/** What the worker is started with; `signal` is the shared flag, `port` the worker's end of the channel. */
export interface WorkerInput {
  url: string;
  applicationName: string;
  connectTimeoutMs: number;
  signal: Int32Array;
  port: MessagePort;
}

/** Opens a connection to `url` (postgres://user:password@host:port/database), blocking until it is made or has failed. */
export function openSyncPg(url: string, options: SyncPgOptions = {}): SyncPg {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const connectTimeoutMs = options.connectTimeoutMs ?? timeoutMs;
  const target = describeTarget(url);
  const password = passwordOf(url);
  const signal = new Int32Array(new SharedArrayBuffer(4));
  const { port1, port2 } = new MessageChannel();
  const input = { url, applicationName: options.applicationName ?? 'kowalski', connectTimeoutMs, signal, port: port2 };
  const { entry, options: threadOptions } = workerOf(import.meta.url, 'sync-pg.worker', options.module);
  const worker = new Worker(entry, { ...threadOptions, workerData: input, transferList: [port2] });
  worker.unref(); // an open connection, like an open SQLite handle, never keeps the process alive
  port1.unref();
  /** Why the connection is closed, once it is. */
  let gone: string | undefined;
  // Seen only between calls (this thread is blocked during one); the next call then fails at once.
  worker.on('error', (err) => void (gone ??= `its worker thread failed: ${err.message}`));
  let nextId = 1;
  let depth = 0;

  const unavailable = (reason: string): KowalskiError =>
    new KowalskiError('KW_ERR_STORE_UNAVAILABLE', scrub(`PostgreSQL at ${target} is unavailable: ${reason}`, password));

  function shutDown(reason: string): void {
    gone ??= reason;
    port1.close();
    void worker.terminate();
  }

  /**
   * Blocks until the worker answers `id` (or `timeoutMs` of waiting passes), then returns its
   * value or throws its error. The wait is counted in slices: time the process spent stopped
   * (SIGSTOP, a suspended machine) ends one slice, not the whole limit, so a call in flight
   * then still gets its answer (a lease renewal refused by the fence, say) instead of calling
   * the store unavailable.
   */
  function answer(id: number, what: string, limitMs = timeoutMs): unknown {
    let waited = 0;
    // Until the flag is set: a wait also wakes at the previous answer's notify when the worker was
    // preempted between that answer's store and its notify (at most once per call: one answer at a time).
    while (Atomics.load(signal, 0) === 0) {
      if (waited >= limitMs) {
        shutDown(`${what} got no answer within ${limitMs} ms; the connection was closed`);
        throw unavailable(gone!);
      }
      const slice = Math.min(WAIT_SLICE_MS, limitMs - waited);
      if (Atomics.wait(signal, 0, 0, slice) === 'timed-out') waited += slice;
    }
    // The worker posts its answer before it sets the flag: it is on the port now.
    const reply = receiveMessageOnPort(port1)?.message as Reply | undefined;
    if (reply?.id !== id) {
      shutDown(reply === undefined ? `its worker's answer never arrived` : 'its worker answered out of turn');
      throw unavailable(gone!);
    }
    if (reply.ok) return reply.value;
    const wire = reply.error;
    switch (wire.kind) {
      case 'postgres':
        throw new PostgresError({ ...wire, message: scrub(wire.message, password) });
      case 'unavailable':
        shutDown(wire.message);
        throw unavailable(wire.message);
      case 'other':
        throw Object.assign(new Error(scrub(wire.message, password)), { name: wire.name });
      default:
        return wire satisfies never;
    }
  }

  function call(request: Request, what: string): unknown {
    if (gone !== undefined) throw unavailable(gone);
    Atomics.store(signal, 0, 0);
    port1.postMessage(request);
    return answer(request.id, what);
  }

  const query = (statement: Statement) =>
    call({ type: 'query', id: nextId++, statement }, 'a statement') as { rows: unknown[]; rowCount: number };

  /** The undo of a failed (nested) transaction; its own failure is dropped, as the caller needs the first error. */
  function undo(savepoint: string | undefined): void {
    try {
      if (savepoint === undefined) query({ sql: 'ROLLBACK' });
      else sync.batch([{ sql: `ROLLBACK TO SAVEPOINT ${savepoint}` }, { sql: `RELEASE SAVEPOINT ${savepoint}` }]);
    } catch {
      // unavailable: the server rolls back the transaction of a closed connection itself
    }
  }

  answer(0, 'connecting', connectTimeoutMs); // the worker's first answer says whether it connected

  const sync: SyncPg = {
    all: <R>(sql: string, params?: readonly unknown[]) => query(statement(sql, params)).rows as R[],
    get: <R>(sql: string, params?: readonly unknown[]) => query(statement(sql, params)).rows[0] as R | undefined,
    run: (sql, params) => query(statement(sql, params)).rowCount,
    batch: (statements) =>
      call({ type: 'batch', id: nextId++, statements: statements.map((s) => statement(s.sql, s.params)) }, 'a batch') as unknown[][],
    exec: (sql) => void call({ type: 'exec', id: nextId++, sql }, 'a script'),
    transaction<A extends unknown[], T>(fn: (...args: A) => T) {
      return (...args: A): T => {
        const savepoint = depth === 0 ? undefined : `kw_sp_${depth}`;
        query({ sql: savepoint === undefined ? 'BEGIN' : `SAVEPOINT ${savepoint}` });
        depth += 1;
        let result: T;
        try {
          result = fn(...args);
          if (typeof (result as { then?: unknown } | null)?.then === 'function') throw new TypeError('Transaction function cannot return a promise');
        } catch (err) {
          depth -= 1;
          undo(savepoint);
          throw err;
        }
        depth -= 1;
        try {
          query({ sql: savepoint === undefined ? 'COMMIT' : `RELEASE SAVEPOINT ${savepoint}` });
        } catch (err) {
          undo(savepoint);
          throw err;
        }
        return result;
      };
    },
    close() {
      if (gone !== undefined) return;
      try {
        call({ type: 'close', id: nextId++ }, 'closing'); // the worker ends the client, so the server sees a clean goodbye
      } catch {
        // closing anyway
      } finally {
        shutDown('it was closed');
      }
    },
  };
  return sync;
}

function statement(sql: string, params: readonly unknown[] | undefined): Statement {
  return params === undefined || params.length === 0 ? { sql } : { sql, params };
}

/** host:port/database of a connection URL, never its user's password. */
export function describeTarget(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname || 'localhost'}:${u.port || '5432'}/${decodeURIComponent(u.pathname.slice(1)) || '(default database)'}`;
  } catch {
    return '(an unparsable connection URL)';
  }
}

function passwordOf(url: string): string {
  try {
    return decodeURIComponent(new URL(url).password);
  } catch {
    return '';
  }
}

/** The server or the driver never should echo the password; if one does, it does not reach a log. Short passwords are left alone, lest every "a" become ***. */
function scrub(message: string, password: string): string {
  return password.length >= 4 ? message.split(password).join('***') : message;
}
