/**
 * A step's artifact, fetched with the auth header: Markdown when it ends in .md, else
 * preformatted text; a download link through a blob URL (a plain link could not carry the header).
 */
import { useEffect, useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { useServices } from '../services';
import { MarkdownView } from './markdown-view';
import { ErrorBox, Loading } from './status';

/** Bigger files are shown cut, and can be downloaded whole. */
const SHOW_MAX = 256 * 1024;

type Loaded = { blob: Blob; text: string | null; url: string };

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
      const head = await blob.slice(0, SHOW_MAX).text();
      if (!live) return;
      url = URL.createObjectURL(blob);
      setLoaded({ blob, text: head.includes('\u0000') ? null : head, url });
    })().catch((err: unknown) => { if (live) setError(asApiError(err)); });
    return () => {
      live = false;
      if (url !== null) URL.revokeObjectURL(url);
    };
  }, [api, runId, path, version, attempt]);

  const name = path.split('/').pop() ?? path;
  return (
    <details class="artifact" open data-testid={testId}>
      <summary>
        Artifact <code>{path}</code>
        {loaded !== null && <span class="muted small"> ({formatBytes(loaded.blob.size)})</span>}
      </summary>
      {loaded === null && error === null && <Loading label="Loading the artifact…" />}
      {error !== null && <ErrorBox error={error} title="Could not load the artifact" onRetry={() => setAttempt((n) => n + 1)} />}
      {loaded !== null && (
        <>
          <div class="artifact__body">
            {loaded.text === null
              ? <p class="muted">A binary file; download it to look at it.</p>
              : path.toLowerCase().endsWith('.md')
                ? <MarkdownView source={loaded.text} />
                : <pre class="pre">{loaded.text}</pre>}
            {loaded.text !== null && loaded.blob.size > SHOW_MAX && <p class="muted small">Only the first {formatBytes(SHOW_MAX)} are shown.</p>}
          </div>
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
