/**
 * A step's artifact, fetched with the auth header: a workbook (its sheets as tables) when it
 * ends in .xlsx, Markdown when it ends in .md, the tables of a data step's JSON file
 * (`sql_batch`, `table_profile`, version 1), else preformatted text; a download link
 * through a blob URL (a plain link could not carry the header). Content is only ever text.
 * Folded unless `open`: fetched only once unfolded.
 */
import { useEffect, useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { useServices } from '../services';
import type { DataFile } from '../types';
import { DataFileView, asDataFile } from './data-file-view';
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

interface Props {
  runId: string;
  path: string;
  version: string;
  testId: string;
  /** Unfolded from the start (the delivery); a folded one is fetched when first unfolded. */
  open?: boolean;
  /** Said after the path in the fold's title. */
  note?: string;
}

export function ArtifactView({ runId, path, version, testId, open = false, note }: Props) {
  const { api } = useServices();
  const [loaded, setLoaded] = useState<Loaded | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [attempt, setAttempt] = useState(0);
  const [unfolded, setUnfolded] = useState(open);

  useEffect(() => {
    if (!unfolded) return undefined;
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
  }, [api, runId, path, version, attempt, unfolded]);

  const name = path.split('/').pop() ?? path;
  const body = loaded?.body;
  return (
    <details class="artifact" open={open} data-testid={testId} onToggle={(e) => { if (e.currentTarget.open) setUnfolded(true); }}>
      <summary>
        Artifact <code>{path}</code>
        {loaded !== null && <span class="muted small"> ({formatBytes(loaded.blob.size)})</span>}
        {note !== undefined && <span class="muted small"> · {note}</span>}
      </summary>
      {unfolded && loaded === null && error === null && <Loading label="Loading the artifact…" />}
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
