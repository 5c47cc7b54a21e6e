/**
 * The thread that holds sync-pg.ts's connection: one `pg.Client` (not a pool: the store
 * has one writer, and a transaction must stay on one connection). It answers one request
 * at a time; each answer is posted on the port, then the shared flag is set and notified,
 * which wakes the blocked main thread. The client pipelines: a batch's statements are all
 * written before the first answer is read.
 */
import { createHash } from 'node:crypto';
import { workerData } from 'node:worker_threads';
import pg from 'pg';
import type { Reply, Request, Statement, WireError, WorkerInput } from './sync-pg.js';
import { messageOf } from '../../../core/index.js';

const { url, applicationName, connectTimeoutMs, signal, port } = workerData as WorkerInput;

/** int8 (COUNT(*), BIGINT ms timestamps) as a JS number, as better-sqlite3 gives it; pg's default is a string. */
function parseInt8(text: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n)) throw new RangeError(`int8 value ${text} is beyond Number.MAX_SAFE_INTEGER; read it as text (::text) instead`);
  return n;
}

const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === 20 && format !== 'binary' ? parseInt8 : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Why the connection is gone, once it is: every later request is answered with it. */
let lost: string | undefined;
const client = new pg.Client({ connectionString: url, application_name: applicationName, types, pipeline: true, keepAlive: true, connectionTimeoutMillis: connectTimeoutMs });
client.on('error', (err) => void (lost ??= err.message));
client.on('end', () => void (lost ??= 'the server closed the connection'));

function reply(message: Reply): void {
  port.postMessage(message);
  Atomics.store(signal, 0, 1);
  Atomics.notify(signal, 0);
}

/** Statement names from the SQL text, so each text is parsed and planned once per connection. */
const names = new Map<string, string>();
function nameOf(sql: string): string {
  let name = names.get(sql);
  if (name === undefined) {
    name = `kw_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
    names.set(sql, name);
  }
  return name;
}

function query(s: Statement): Promise<pg.QueryResult> {
  if (s.params === undefined) return client.query(s.sql);
  return client.query({ name: nameOf(s.sql), text: s.sql, values: [...s.params] });
}

/** SQLSTATEs that mean the server is going or gone (class 08: connection exception; 57P01–03: shutdown, crash, not accepting). */
function meansUnavailable(code: string): boolean {
  return code.startsWith('08') || code === '57P01' || code === '57P02' || code === '57P03';
}

function wireError(err: unknown, batchIndex?: number): WireError {
  if (err instanceof pg.DatabaseError && err.code !== undefined && !meansUnavailable(err.code)) {
    const out: WireError = { kind: 'postgres', message: err.message, code: err.code };
    if (err.detail !== undefined) out.detail = err.detail;
    if (err.constraint !== undefined) out.constraint = err.constraint;
    if (err.table !== undefined) out.table = err.table;
    if (batchIndex !== undefined) out.batchIndex = batchIndex;
    return out;
  }
  const message = err instanceof Error ? err.message || err.name : String(err);
  if (lost !== undefined || err instanceof pg.DatabaseError || (err as { syscall?: unknown }).syscall !== undefined) {
    return { kind: 'unavailable', message: lost ?? message };
  }
  return { kind: 'other', name: err instanceof Error ? err.name : 'Error', message };
}

async function handle(request: Request): Promise<unknown> {
  switch (request.type) {
    case 'query': {
      const result = await query(request.statement);
      return { rows: result.rows, rowCount: result.rowCount ?? 0 };
    }
    case 'batch': {
      // Pipelined: every statement is written at once, so the batch costs one network round trip.
      const settled = await Promise.allSettled(request.statements.map(query));
      const failed = settled.findIndex((r) => r.status === 'rejected');
      if (failed >= 0) throw Object.assign(new BatchError(), { cause: (settled[failed] as PromiseRejectedResult).reason, index: failed });
      return settled.map((r) => (r as PromiseFulfilledResult<pg.QueryResult>).value.rows);
    }
    case 'exec':
      await client.query(request.sql);
      return null;
    case 'close':
      await client.end();
      return null;
    default:
      return request satisfies never;
  }
}

/** Carries the position of the failed statement of a batch to wireError. */
class BatchError extends Error {
  index = 0;
}

port.on('message', (request: Request) => {
  if (lost !== undefined && request.type !== 'close') {
    reply({ id: request.id, ok: false, error: { kind: 'unavailable', message: lost } });
    return;
  }
  handle(request).then(
    (value) => reply({ id: request.id, ok: true, value }),
    (err: unknown) => {
      const error = err instanceof BatchError ? wireError(err.cause, err.index) : wireError(err);
      reply({ id: request.id, ok: false, error });
    },
  );
});

// The first answer (id 0): connected, or why not. Any failure here means the store cannot be reached.
client.connect().then(
  () => reply({ id: 0, ok: true, value: null }),
  (err: unknown) => reply({ id: 0, ok: false, error: { kind: 'unavailable', message: lost ?? messageOf(err) } }),
);
