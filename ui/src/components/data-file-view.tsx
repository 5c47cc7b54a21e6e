/**
 * A data step's JSON file (`sql_batch` results, a `table_profile`; shapes in
 * agents/data-types.ts), checked before it is shown, then shown as tables: each query
 * with its question, SQL and result; each profiled table with its columns' statistics.
 */
import type { DataFile, SqlBatchQuery, TableProfileFile } from '../types';
import { DataTable, cellText } from './data-table';

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isRows = (v: unknown): boolean => Array.isArray(v) && v.every(Array.isArray);
const isColumns = (v: unknown): boolean => Array.isArray(v) && v.every((c) => isObject(c) && typeof c.name === 'string');

function isQuery(q: unknown): boolean {
  return isObject(q) && typeof q.question === 'string' && typeof q.sql === 'string' && isColumns(q.columns) && isRows(q.rows);
}

function isProfiledTable(t: unknown): boolean {
  return isObject(t) && isObject(t.table) && typeof t.table.name === 'string' && isColumns(t.columns) && (t.columns as unknown[]).every((c) => isObject(c) && Array.isArray(c.top));
}

/** The file, when it is a `sql_batch` or `table_profile` file of version 1; else null (shown as text). */
export function asDataFile(text: string): DataFile | null {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObject(v) || v.version !== 1) return null;
  if (v.kind === 'sql_batch' && Array.isArray(v.queries) && v.queries.every(isQuery)) return v as unknown as DataFile;
  if (v.kind === 'table_profile' && Array.isArray(v.tables) && v.tables.every(isProfiledTable)) return v as unknown as DataFile;
  return null;
}

const NUMERIC_TYPE = /^(TINYINT|SMALLINT|INTEGER|INT|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT|DECIMAL|NUMERIC|DOUBLE|FLOAT|REAL)\b/i;

export function DataFileView({ file }: { file: DataFile }) {
  return (
    <div class="data-file" data-testid="data-file" data-kind={file.kind}>
      {file.kind === 'sql_batch'
        ? file.queries.map((q, i) => <QueryView key={i} query={q} />)
        : <ProfileView file={file} />}
    </div>
  );
}

function QueryView({ query }: { query: SqlBatchQuery }) {
  const n = query.rows.length;
  return (
    <section class="data-file__item" data-testid="data-query">
      <h4>{query.index}. {query.question}</h4>
      <pre class="pre"><code>{query.sql}</code></pre>
      <DataTable caption={`Result of query ${query.index} · ${n} ${n === 1 ? 'row' : 'rows'}`}
        columns={query.columns.map((c) => ({ label: c.name, title: c.type, numeric: NUMERIC_TYPE.test(c.type) }))} rows={query.rows} />
      {query.truncated && <p class="warn-text small" data-testid="truncated-note">Truncated: more rows matched than the data tool returns; only these {n} are shown.</p>}
    </section>
  );
}

const PROFILE_COLUMNS = ['Column', 'Type', 'Nulls', 'Distinct', 'Min', 'Max', 'Mean', 'Most frequent'].map((label, i) => ({ label, numeric: i >= 2 && i <= 3 ? true : undefined, nowrap: i === 1 ? true : undefined }));

function ProfileView({ file }: { file: TableProfileFile }) {
  return (
    <>
      {file.tables.map(({ table, columns, notes }, i) => (
        <section key={i} class="data-file__item" data-testid="data-profile">
          <h4><code>{table.name}</code> <span class="muted small">{table.source}{table.sheet === undefined ? '' : ` · ${table.sheet}`} · {table.rowCount} rows</span></h4>
          <DataTable caption={`Columns of ${table.name}`} columns={PROFILE_COLUMNS}
            rows={columns.map((c) => [c.name, c.type, c.nulls, c.distinct, c.min, c.max, c.mean, c.top.map((t) => `${cellText(t.value) ?? 'NULL'} (${t.count})`).join(', ')])} />
          {Array.isArray(notes) && notes.length > 0 && <ul class="small">{notes.map((note, j) => <li key={j}>{note}</li>)}</ul>}
        </section>
      ))}
      {Array.isArray(file.skipped) && file.skipped.length > 0 && (
        <>
          <h4>Skipped</h4>
          <ul class="small">{file.skipped.map((s, i) => <li key={i}><code>{s.source}</code>: {s.error}</li>)}</ul>
        </>
      )}
    </>
  );
}
