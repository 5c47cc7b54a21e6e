/**
 * A step's artifact, fetched with the auth header: a workbook (its sheets as tables) when it
 * ends in .xlsx, Markdown when it ends in .md, the tables of a data step's JSON file
 * (`sql_batch`, `table_profile`, version 1), else preformatted text; a download link
 * through a blob URL (a plain link could not carry the header). Content is only ever text.
 */
import { useEffect, useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { useServices } from '../services';
import type { DataFile, SqlBatchQuery, TableProfileFile } from '../types';
import { DataTable, cellText } from './data-table';
import { MarkdownView } from './markdown-view';
import { ErrorBox, Loading } from './status';
import { WorkbookView } from './workbook-view';

/** Bigger files are shown cut, and can be downloaded whole. */
const SHOW_MAX = 256 * 1024;
/** A data step's JSON file is read whole, up to this size, to show its tables. */
const DATA_MAX = 8 * 1024 * 1024;

type Body =
  | { kind: 'workbook' }
  | { kind: 'data'; file: DataFile }
  | { kind: 'markdown'; text: string }
  | { kind: 'text'; text: string }
  | { kind: 'binary' };

type Loaded = { blob: Blob; url: string; body: Body };

async function readBody(path: string, blob: Blob): Promise<Body> {
  const lower = path.toLowerCase();
  if (lower.endsWith('.xlsx')) return { kind: 'workbook' };
  if (lower.endsWith('.json') && blob.size <= DATA_MAX) {
    const file = asDataFile(await blob.text());
    if (file !== null) return { kind: 'data', file };
  }
  const head = await blob.slice(0, SHOW_MAX).text();
  if (head.includes('\u0000')) return { kind: 'binary' };
  return lower.endsWith('.md') ? { kind: 'markdown', text: head } : { kind: 'text', text: head };
}

export function ArtifactView({ runId, path, version, testId }: { runId: string; path: string; version: string; testId: string }) {
  const { api } = useServices();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    let live = true;
    let url: string | null = null;
    setLoaded(null);
    setError(null);
    (async () => {
      const blob = await api.artifact(runId, path);
      const body = await readBody(path, blob);
      if (!live) return;
      url = URL.createObjectURL(blob);
      setLoaded({ blob, url, body });
    })().catch((err: unknown) => { if (live) setError(asApiError(err)); });
    return () => {
      live = false;
      if (url !== null) URL.revokeObjectURL(url);
    };
  }, [api, runId, path, version, attempt]);

  const name = path.split('/').pop() ?? path;
  const body = loaded?.body;
  return (
    <details class="artifact" open data-testid={testId}>
      <summary>
        Artifact <code>{path}</code>
        {loaded !== null && <span class="muted small"> ({formatBytes(loaded.blob.size)})</span>}
      </summary>
      {loaded === null && error === null && <Loading label="Loading the artifact…" />}
      {error !== null && <ErrorBox error={error} title="Could not load the artifact" onRetry={() => setAttempt((n) => n + 1)} />}
      {loaded !== null && body?.kind === 'workbook' && <WorkbookView blob={loaded.blob} url={loaded.url} name={name} testId={`${testId}-workbook`} />}
      {loaded !== null && body?.kind === 'data' && <DataFileView file={body.file} />}
      {loaded !== null && body !== undefined && body.kind !== 'workbook' && (
        <>
          {body.kind !== 'data' && (
            <div class="artifact__body">
              {body.kind === 'binary' && <p class="muted">A binary file; download it to look at it.</p>}
              {body.kind === 'markdown' && <MarkdownView source={body.text} />}
              {body.kind === 'text' && <pre class="pre">{body.text}</pre>}
              {body.kind !== 'binary' && loaded.blob.size > SHOW_MAX && <p class="muted small">Only the first {formatBytes(SHOW_MAX)} are shown.</p>}
            </div>
          )}
          <p><a class="btn btn--small" href={loaded.url} download={name}>Download {name}</a></p>
        </>
      )}
    </details>
  );
}

function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

// A data step's JSON file (docs: agents/data-types.ts), checked before it is shown.

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

function DataFileView({ file }: { file: DataFile }) {
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

const PROFILE_COLUMNS = ['Column', 'Type', 'Nulls', 'Distinct', 'Min', 'Max', 'Mean', 'Most frequent'].map((label, i) => ({ label, numeric: i >= 2 && i <= 3 ? true : undefined }));

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
