/**
 * `#/vault`: the notes agents and people share — the note tree, search (keyword, and
 * semantic when switched on), a note rendered (Markdown without raw HTML) with its
 * writes, and the vault's recent writes: each with its diff, the model call that asked
 * for it, and Revert. Reindex reads every note again (and embeds them, semantic search on),
 * with a bar while it runs (`work` frames) and what it did once done.
 */
import { useEffect, useState } from 'preact/hooks';
import { MarkdownView } from '../components/markdown-view';
import { NoteTree } from '../components/note-tree';
import { ErrorBox, Loading } from '../components/status';
import { VaultSearch } from '../components/vault-search';
import { WriteList } from '../components/write-list';
import { WorkProgress } from '../components/work-progress';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { formatCount, formatTime, plural } from '../format';
import { useResource } from '../hooks/use-resource';
import { href } from '../router';
import { useServices } from '../services';

export function VaultScreen({ note }: { note: string | undefined }) {
  const { api } = useServices();
  const notes = useResource(() => api.vaultNotes(), [api]);
  const writes = useResource(() => api.writes(), [api]);
  // Bumped by every change made here (a revert), so the open note is read again too.
  const [version, setVersion] = useState(0);
  const refreshAll = () => { notes.refresh(); writes.refresh(); setVersion((v) => v + 1); };
  const [reindexing, setReindexing] = useState(false);
  const [reindexed, setReindexed] = useState<string | null>(null);
  const [reindexError, setReindexError] = useState<ApiError | null>(null);
  const reindex = (): void => {
    setReindexing(true);
    setReindexed(null);
    setReindexError(null);
    api.reindexVault()
      .then((r) => setReindexed(`Read ${plural(r.notes, 'note')}, embedded ${plural(r.chunks, 'chunk')}.`), (err: unknown) => setReindexError(asApiError(err)))
      .finally(() => {
        setReindexing(false);
        refreshAll();
      });
  };
  return (
    <section aria-labelledby="vault-title">
      <div class="page-head page-head--row">
        <div>
          <h1 id="vault-title">Vault</h1>
          <p class="muted">Plain Markdown notes your agents read and write. Every write an agent makes is recorded here and can be reverted.</p>
        </div>
        <div class="actions">
          <button type="button" class="btn btn--small" onClick={reindex} disabled={reindexing} aria-busy={reindexing} data-testid="vault-reindex"
            title="Read every note again and, with semantic search on, embed them all again">
            {reindexing ? 'Reindexing…' : 'Reindex'}
          </button>
          <button type="button" class="btn btn--small" onClick={refreshAll} data-testid="vault-refresh">Refresh</button>
        </div>
      </div>
      <WorkProgress op="vault-reindex" running={reindexing} />
      {reindexed !== null && <p class="success" role="status" data-testid="vault-reindex-result">{reindexed}</p>}
      {reindexError !== null && <ErrorBox error={reindexError} title="Could not reindex" />}
      <div class="vault">
        <aside class="vault__side" aria-label="Notes">
          <VaultSearch />
          <h2>Notes{notes.data !== undefined && <span class="muted small"> · {notes.data.length}</span>}</h2>
          {notes.data === undefined && notes.loading && <Loading label="Loading the notes…" />}
          {notes.error !== undefined && <ErrorBox error={notes.error} title="Could not load the notes" onRetry={notes.reload} />}
          {notes.data !== undefined && <NoteTree notes={notes.data} current={note} />}
        </aside>
        <div class="vault__main">
          {note !== undefined && <NotePanel key={note} path={note} version={version} onChanged={refreshAll} />}
          <section aria-labelledby="writes-title" class="vault__writes">
            <h2 id="writes-title">Recent writes</h2>
            {writes.data === undefined && writes.loading && <Loading label="Loading the writes…" />}
            {writes.error !== undefined && <ErrorBox error={writes.error} title="Could not load the writes" onRetry={writes.reload} />}
            {writes.data !== undefined && <WriteList writes={writes.data} showPath onChanged={refreshAll} />}
          </section>
        </div>
      </div>
    </section>
  );
}

function NotePanel({ path, version, onChanged }: { path: string; version: number; onChanged: () => void }) {
  const { api } = useServices();
  const view = useResource(() => api.vaultNote(path), [api, path]);
  useEffect(() => { if (version > 0) view.refresh(); }, [version]);
  // Gone (a revert of its create deleted it, or it was moved): not the last text it had.
  if (view.error?.code === 'KW_ERR_VAULT_NOT_FOUND') return <NoteGone path={path} version={version} onChanged={onChanged} />;
  if (view.data === undefined) {
    return view.error === undefined
      ? <Loading label="Loading the note…" />
      : <ErrorBox error={view.error} title={`Could not open ${path}`} onRetry={view.reload} />;
  }
  const { note, content, writes } = view.data;
  return (
    <article class="panel vault__note" aria-labelledby="note-title" data-testid="note-view">
      <div class="vault__note-head">
        {/* A note whose text starts with its title shows it once, rendered. */}
        <h2 id="note-title" class={content.startsWith('# ') ? 'sr-only' : undefined}>{note.title}</h2>
        <p class="muted small"><code>{note.path}</code> · {formatCount(note.size_bytes)} bytes · changed {formatTime(note.modified_at)} · <a href={href({ name: 'vault', note: undefined })}>close</a></p>
      </div>
      <MarkdownView source={content} testId="note-body" />
      <details class="vault__note-writes" open={writes.length > 0}>
        <summary>Writes to this note ({writes.length})</summary>
        <WriteList writes={writes} showPath={false} onChanged={onChanged} />
      </details>
    </article>
  );
}

/** A note the vault does not hold (any more), with the writes that made and removed it. */
function NoteGone({ path, version, onChanged }: { path: string; version: number; onChanged: () => void }) {
  const { api } = useServices();
  const writes = useResource(() => api.writes(path), [api, path]);
  useEffect(() => { if (version > 0) writes.refresh(); }, [version]);
  return (
    <article class="panel vault__note" aria-labelledby="note-title" data-testid="note-gone">
      <div class="vault__note-head">
        <h2 id="note-title"><code>{path}</code></h2>
        <p class="muted small"><a href={href({ name: 'vault', note: undefined })}>close</a></p>
      </div>
      <p role="status">The vault holds no note <code>{path}</code> now: it was deleted (reverting the write that created it deletes it) or moved, or was never written.</p>
      {writes.data === undefined && writes.loading && <Loading label="Loading its writes…" />}
      {writes.error !== undefined && <ErrorBox error={writes.error} title="Could not load its writes" onRetry={writes.reload} />}
      {writes.data !== undefined && writes.data.length > 0 && (
        <details class="vault__note-writes" open>
          <summary>Writes to this note ({writes.data.length})</summary>
          <WriteList writes={writes.data} showPath={false} onChanged={onChanged} />
        </details>
      )}
    </article>
  );
}
