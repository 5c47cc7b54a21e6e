/**
 * `query_sql`: one read-only statement, bounded. DuckDB itself says what the statement is
 * (`extractStatements`, then the prepared statement's type): a SELECT (WITH … SELECT,
 * VALUES, DESCRIBE, SUMMARIZE, SHOW, PIVOT … IN (…) are SELECTs to it) or a plain EXPLAIN
 * runs; anything else — two statements, CREATE, INSERT, DROP, COPY, ATTACH, INSTALL, SET,
 * EXPLAIN ANALYZE — is refused with KW_ERR_DATA_READ_ONLY before it runs. The result is
 * streamed and fetching stops at `maxRows` rows or `maxBytes` of JSON (`truncated`); a
 * query running past `timeoutMs` is interrupted (KW_ERR_DATA_TIMEOUT).
 */
import { StatementType } from '@duckdb/node-api';
import type { DuckDBConnection, DuckDBPreparedStatement } from '@duckdb/node-api';
import { KowalskiError, messageOf } from '../../core/index.js';
import type { DataValue, QueryResult } from '../data-types.js';
import { toDataRow } from './values.js';

export interface QueryLimits {
  /** Rows returned at most (default 1,000; at most 10,000). */
  maxRows: number;
  /** Bytes of row JSON returned at most (default 2 MiB). */
  maxBytes: number;
  /** Milliseconds a query may run before it is interrupted (default 30,000). */
  timeoutMs: number;
}

export const DEFAULT_MAX_ROWS = 1000;
export const MAX_ROWS_CAP = 10_000;
export const DEFAULT_MAX_BYTES = 2 * 1024 * 1024;
export const DEFAULT_TIMEOUT_MS = 30_000;

const READ_WORDS = new Set(['SELECT', 'WITH', 'VALUES', 'FROM', 'TABLE', 'EXPLAIN', 'DESCRIBE', 'SUMMARIZE', 'SHOW', 'PIVOT', 'UNPIVOT']);
const ALLOWED = 'SELECT (also WITH … SELECT, VALUES, DESCRIBE, SUMMARIZE, SHOW), or EXPLAIN';

/** The first words of a statement, upper case, comments and opening parentheses skipped. */
export function leadingWords(sql: string, count = 2): string[] {
  const bare = sql.replace(/--[^\n]*|\/\*[\s\S]*?\*\//g, ' ').replace(/^[\s(]+/, '');
  return (bare.match(/[A-Za-z_]+/g) ?? []).slice(0, count).map((w) => w.toUpperCase());
}

/** `maxRows` as asked, within 1…MAX_ROWS_CAP (default DEFAULT_MAX_ROWS). */
export function clampRows(asked: number | undefined): number {
  if (asked === undefined || !Number.isFinite(asked)) return DEFAULT_MAX_ROWS;
  return Math.min(MAX_ROWS_CAP, Math.max(1, Math.floor(asked)));
}

/** `a DROP statement`, `an INSERT statement`. */
function statement(kind: string): string {
  return `${/^[AEIOU]/.test(kind) ? 'an' : 'a'} ${kind} statement`;
}

function refused(what: string, sql: string): KowalskiError {
  const hint = leadingWords(sql, 1)[0] === 'PIVOT' ? ' (PIVOT needs its values listed: PIVOT t ON col IN (\'a\', \'b\') USING sum(x))' : '';
  return new KowalskiError('KW_ERR_DATA_READ_ONLY', `query_sql runs one read-only statement — ${ALLOWED} — and nothing that writes, attaches, installs or sets; this is ${what}${hint}`);
}

function sqlError(err: unknown): KowalskiError {
  const message = messageOf(err);
  if (/^Permission Error/.test(message)) {
    return new KowalskiError('KW_ERR_DATA_READ_ONLY', `${message} — query_sql reads only the tables of the data root (see list_tables)`, { cause: err });
  }
  return new KowalskiError('KW_ERR_DATA_SQL', message, { cause: err });
}

/** Parse and bind the statement, and refuse it unless it only reads. */
async function readOnlyStatement(conn: DuckDBConnection, sql: string): Promise<DuckDBPreparedStatement> {
  let extracted;
  try {
    extracted = await conn.extractStatements(sql);
  } catch (err) {
    throw sqlError(err);
  }
  if (extracted.count === 0) throw new KowalskiError('KW_ERR_DATA_SQL', 'no SQL statement was given');
  if (extracted.count > 1) throw refused(`${extracted.count} statements (give exactly one)`, sql);
  let prepared: DuckDBPreparedStatement;
  try {
    prepared = await extracted.prepare(0);
  } catch (err) {
    const first = leadingWords(sql, 1)[0] ?? '';
    if (first !== '' && !READ_WORDS.has(first)) throw refused(statement(first), sql);
    throw sqlError(err);
  }
  const type = prepared.statementType;
  const words = leadingWords(sql, 2);
  if (type === StatementType.SELECT) return prepared;
  if (type === StatementType.EXPLAIN && words[1] !== 'ANALYZE' && words[1] !== 'ANALYSE') return prepared;
  prepared.destroySync();
  const first = words[0] ?? '';
  const kind = READ_WORDS.has(first) || first === '' ? (StatementType[type] ?? String(type)) : first;
  throw refused(type === StatementType.EXPLAIN ? 'EXPLAIN ANALYZE, which runs the statement' : statement(kind), sql);
}

export async function runQuery(conn: DuckDBConnection, sql: string, limits: QueryLimits): Promise<QueryResult> {
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    conn.interrupt();
  }, limits.timeoutMs);
  try {
    const prepared = await readOnlyStatement(conn, sql);
    const result = await prepared.stream();
    const columns = result.columnNames().map((name, i) => ({ name, type: result.columnType(i).toString() }));
    const rows: DataValue[][] = [];
    let bytes = 2;
    let truncated = false;
    fetching: for (;;) {
      const chunk = await result.fetchChunk();
      if (chunk === null || chunk.rowCount === 0) break;
      for (const raw of chunk.getRows()) {
        const row = toDataRow(raw);
        const size = JSON.stringify(row).length + 1;
        if (rows.length >= limits.maxRows || bytes + size > limits.maxBytes) {
          truncated = true;
          break fetching;
        }
        rows.push(row);
        bytes += size;
      }
    }
    return { columns, rows, rowCount: rows.length, truncated };
  } catch (err) {
    if (timedOut) {
      throw new KowalskiError('KW_ERR_DATA_TIMEOUT', `the query ran longer than ${limits.timeoutMs / 1000} s and was interrupted; narrow it (WHERE, LIMIT, fewer joins)`, { cause: err });
    }
    throw err instanceof KowalskiError ? err : sqlError(err);
  } finally {
    clearTimeout(timer);
  }
}
