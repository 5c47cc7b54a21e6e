/**
 * The results of the data tool as the data steps keep them: a `QueryResult` as a GFM
 * Markdown table (for people and for the model steps that read it), and the JSON files
 * written beside a Markdown artifact (`SqlBatchFile`, `TableProfileFile`), checked when
 * read back so a report never trusts a file it did not understand.
 *
 * In a Markdown cell `|` is escaped, a line break shows as `↵`, NULL as an empty cell,
 * and numeric columns are right-aligned. The Markdown shows at most `MARKDOWN_ROWS`
 * rows; the JSON keeps every row the data tool returned.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KowalskiError, messageOf } from '../core/index.js';
import type { ErrorCode } from '../core/index.js';
import type {
  ColumnProfile, DataColumn, DataValue, DescribeTableResult, QueryResult, SqlBatchFile, SqlBatchQuery, TableInfo, TableProfileFile,
} from '../agents/index.js';

/** Rows of one result shown in Markdown (the rest are counted, and stay in the JSON). */
export const MARKDOWN_ROWS = 50;

/** Either file a data step writes beside its Markdown artifact. */
export type ResultsFile = SqlBatchFile | TableProfileFile;

/** How a DuckDB type is shown: numbers right-aligned and typed as numbers, dates as dates… */
export type ValueKind = 'number' | 'date' | 'timestamp' | 'boolean' | 'text';

const NUMERIC = /^(?:U?(?:TINY|SMALL|BIG|HUGE)?INT(?:EGER)?|INT[1248]|LONG|SHORT|SIGNED|FLOAT[48]?|DOUBLE|REAL|DECIMAL|NUMERIC|VARINT|BIGNUM)\b/i;

export function kindOfType(type: string): ValueKind {
  const t = type.trim();
  if (NUMERIC.test(t)) return 'number';
  if (/^DATE$/i.test(t)) return 'date';
  if (/^(?:TIMESTAMP|DATETIME)/i.test(t)) return 'timestamp';
  if (/^(?:BOOLEAN|BOOL|LOGICAL)$/i.test(t)) return 'boolean';
  return 'text';
}

/** The JSON beside a workdir-relative artifact: `results/run.md` → `results/run.json`. */
export function jsonPathFor(artifactRel: string): string {
  const ext = path.posix.extname(artifactRel);
  return `${ext === '' ? artifactRel : artifactRel.slice(0, -ext.length)}.json`;
}

/** One value as a Markdown table cell. */
export function markdownCell(value: DataValue): string {
  if (value === null) return '';
  const text = typeof value === 'string' ? value : String(value);
  return text.replace(/\r\n|\r|\n/g, '↵').replaceAll('|', '\\|');
}

/** A result as a GFM table with at most `maxRows` rows, then a line counting the rows left out. */
export function markdownTable(result: QueryResult, maxRows = MARKDOWN_ROWS): string {
  if (result.columns.length === 0) return '_(no columns)_';
  const row = (cells: string[]): string => `| ${cells.join(' | ')} |`;
  const lines = [
    row(result.columns.map((c) => markdownCell(c.name))),
    `|${result.columns.map((c) => (kindOfType(c.type) === 'number' ? '---:' : '---')).join('|')}|`,
    ...result.rows.slice(0, maxRows).map((r) => row(result.columns.map((_, i) => markdownCell(r[i] ?? null)))),
  ];
  if (result.rows.length === 0) lines.push('', '_(no rows)_');
  const more = result.rows.length - maxRows;
  if (more > 0) lines.push('', `… ${more} more ${more === 1 ? 'row' : 'rows'} in the JSON`);
  return lines.join('\n');
}

/** The JSON text of a results file (what `writeWorkdirFile` writes at `jsonPathFor(artifact)`). */
export function resultsJson(file: ResultsFile): string {
  return `${JSON.stringify(file, null, 2)}\n`;
}

// ---- checking what was read ----

/** Where in the JSON a value is wrong, and how. */
class Problem extends Error {
  constructor(readonly at: string, readonly what: string) {
    super(`${at === '' ? 'the file' : at} ${what}`);
  }
}

function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'string') return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  return typeof v === 'object' ? 'an object' : `${typeof v} ${String(v)}`; // undefined is told apart by expected()
}

/** `at` should be `what` but is `v` (or is missing). */
function expected(at: string, what: string, v: unknown): Problem {
  return v === undefined ? new Problem(at, `is missing (it should be ${what})`) : new Problem(at, `should be ${what}, not ${describe(v)}`);
}

function obj(v: unknown, at: string): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw expected(at, 'an object', v);
  return v as Record<string, unknown>;
}

function arr(v: unknown, at: string): unknown[] {
  if (!Array.isArray(v)) throw expected(at, 'an array', v);
  return v;
}

function str(v: unknown, at: string): string {
  if (typeof v !== 'string') throw expected(at, 'a string', v);
  return v;
}

function count(v: unknown, at: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw expected(at, 'a whole number ≥ 0', v);
  return v;
}

function value(v: unknown, at: string): DataValue {
  if (v === null || typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) return v;
  throw expected(at, 'a string, number, boolean or null', v);
}

function join(at: string, key: string | number): string {
  return typeof key === 'number' ? `${at}[${key}]` : at === '' ? key : `${at}.${key}`;
}

function columnOf(v: unknown, at: string): DataColumn {
  const c = obj(v, at);
  return { name: str(c.name, join(at, 'name')), type: str(c.type, join(at, 'type')) };
}

function queryResultAt(v: unknown, at: string): QueryResult {
  const o = obj(v, at);
  const columns = arr(o.columns, join(at, 'columns')).map((c, i) => columnOf(c, join(join(at, 'columns'), i)));
  const rows = arr(o.rows, join(at, 'rows')).map((r, i) => {
    const rowAt = join(join(at, 'rows'), i);
    const cells = arr(r, rowAt);
    if (cells.length !== columns.length) throw new Problem(rowAt, `has ${cells.length} cells, but there are ${columns.length} columns`);
    return cells.map((cell, j) => value(cell, join(rowAt, j)));
  });
  const rowCount = count(o.rowCount, join(at, 'rowCount'));
  if (typeof o.truncated !== 'boolean') throw expected(join(at, 'truncated'), 'true or false', o.truncated);
  return { columns, rows, rowCount, truncated: o.truncated };
}

function batchQuery(v: unknown, at: string): SqlBatchQuery {
  const o = obj(v, at);
  const index = count(o.index, join(at, 'index'));
  return { index, question: str(o.question, join(at, 'question')), sql: str(o.sql, join(at, 'sql')), ...queryResultAt(o, at) };
}

function tableInfo(v: unknown, at: string): TableInfo {
  const o = obj(v, at);
  const t: TableInfo = {
    name: str(o.name, join(at, 'name')),
    source: str(o.source, join(at, 'source')),
    rowCount: count(o.rowCount, join(at, 'rowCount')),
    columnCount: count(o.columnCount, join(at, 'columnCount')),
  };
  if (o.sheet !== undefined) t.sheet = str(o.sheet, join(at, 'sheet'));
  return t;
}

function columnProfile(v: unknown, at: string): ColumnProfile {
  const o = obj(v, at);
  const mean = o.mean === null || o.mean === undefined ? null : value(o.mean, join(at, 'mean'));
  if (typeof mean !== 'number' && mean !== null) throw expected(join(at, 'mean'), 'a number or null', mean);
  return {
    name: str(o.name, join(at, 'name')),
    type: str(o.type, join(at, 'type')),
    nulls: count(o.nulls, join(at, 'nulls')),
    distinct: count(o.distinct, join(at, 'distinct')),
    min: value(o.min ?? null, join(at, 'min')),
    max: value(o.max ?? null, join(at, 'max')),
    mean,
    top: arr(o.top ?? [], join(at, 'top')).map((t, i) => {
      const tAt = join(join(at, 'top'), i);
      const e = obj(t, tAt);
      return { value: value(e.value ?? null, join(tAt, 'value')), count: count(e.count, join(tAt, 'count')) };
    }),
  };
}

function describeResult(v: unknown, at: string): DescribeTableResult {
  const o = obj(v, at);
  return {
    table: tableInfo(o.table, join(at, 'table')),
    columns: arr(o.columns, join(at, 'columns')).map((c, i) => columnProfile(c, join(join(at, 'columns'), i))),
    notes: arr(o.notes ?? [], join(at, 'notes')).map((n, i) => str(n, join(join(at, 'notes'), i))),
  };
}

function resultsFileOf(v: unknown): ResultsFile {
  const o = obj(v, '');
  if (o.version !== 1) throw expected('version', '1', o.version);
  if (o.kind === 'sql_batch') {
    return { version: 1, kind: 'sql_batch', queries: arr(o.queries, 'queries').map((q, i) => batchQuery(q, join('queries', i))) };
  }
  if (o.kind === 'table_profile') {
    return {
      version: 1,
      kind: 'table_profile',
      tables: arr(o.tables, 'tables').map((t, i) => describeResult(t, join('tables', i))),
      skipped: arr(o.skipped ?? [], 'skipped').map((s, i) => {
        const e = obj(s, join('skipped', i));
        return { source: str(e.source, join(join('skipped', i), 'source')), error: str(e.error, join(join('skipped', i), 'error')) };
      }),
    };
  }
  throw expected('kind', '"sql_batch" or "table_profile"', o.kind);
}

/**
 * Check a value claimed to be a `QueryResult` (what `query_sql` answered); anything else
 * is `code`, with `what` (e.g. `query_sql's answer`) and the place that is wrong.
 */
export function checkQueryResult(v: unknown, code: ErrorCode, what: string): QueryResult {
  try {
    return queryResultAt(v, '');
  } catch (err) {
    if (err instanceof Problem) throw new KowalskiError(code, `${what} is not a query result: ${err.message}`);
    throw err;
  }
}

/**
 * Read and check a results file. A missing file, bad JSON, or JSON that is neither a
 * `SqlBatchFile` nor a `TableProfileFile` is KW_ERR_REPORT_INPUT naming the file (`shown`,
 * default its path) and what is wrong.
 */
export function readResultsFile(file: string, shown = file): ResultsFile {
  const where = { where: { file: shown } };
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new KowalskiError('KW_ERR_REPORT_INPUT', `${shown} does not exist`, where);
    if (code === 'EISDIR') throw new KowalskiError('KW_ERR_REPORT_INPUT', `${shown} is a folder, not a results file`, where);
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new KowalskiError('KW_ERR_REPORT_INPUT', `${shown} is not JSON: ${messageOf(err)}`, where);
  }
  try {
    return resultsFileOf(parsed);
  } catch (err) {
    if (err instanceof Problem) {
      throw new KowalskiError('KW_ERR_REPORT_INPUT', `${shown} is not a sql_batch or table_profile results file: ${err.message}`, where);
    }
    throw err;
  }
}
