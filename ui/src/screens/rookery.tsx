/**
 * `#/rookery`: hordes being built — "Build with the builder" (a conversation with the builder
 * agent beside the draft) or "Start by hand" (the direct editor alone), and the drafts so far.
 * Without a model the builder cannot talk: the tab says so (a link to Setup) and the editor
 * still works. `#/rookery/<draft>` is one draft (rookery-draft.tsx).
 */
import { useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { Empty, ErrorBox, Loading } from '../components/status';
import { NoModelNotice, StageTag } from '../components/draft-parts';
import { formatTime } from '../format';
import { useHasModel } from '../hooks/use-has-model';
import { useResource } from '../hooks/use-resource';
import { href, navigate } from '../router';
import { useServices } from '../services';
import { RookeryDraftScreen } from './rookery-draft';

export function RookeryScreen({ id }: { id: string | undefined }) {
  return id === undefined ? <Drafts /> : <RookeryDraftScreen id={id} />;
}

function Drafts() {
  const { api } = useServices();
  const drafts = useResource(() => api.drafts(), [api]);
  const hasModel = useHasModel();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);

  const start = async (withChat: boolean) => {
    setBusy(true);
    setError(undefined);
    try {
      const made = await api.createDraft(withChat);
      navigate({ name: 'rookery', id: made.id });
    } catch (err) {
      setError(asApiError(err));
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="rookery-title">
      <div class="page-head">
        <h1 id="rookery-title">Rookery</h1>
        <p class="muted">Build a horde: tell the builder what the work is, or write the steps yourself. The draft is checked as you go; "Create horde" puts it in Hordes.</p>
      </div>
      {hasModel === false && <NoModelNotice />}
      <div class="panel rookery-new">
        <button type="button" class="btn btn--primary" disabled={busy || hasModel !== true} onClick={() => void start(true)} data-testid="rookery-new-chat">
          Build with the builder
        </button>
        <button type="button" class="btn" disabled={busy} onClick={() => void start(false)} data-testid="rookery-new-manual">
          Start by hand
        </button>
        {error !== undefined && <ErrorBox error={error} title="Could not start a draft" />}
      </div>
      <h2>Drafts</h2>
      {drafts.data === undefined && drafts.loading && <Loading label="Loading the drafts…" />}
      {drafts.error !== undefined && <ErrorBox error={drafts.error} title="Could not load the drafts" onRetry={drafts.reload} />}
      {drafts.data !== undefined && drafts.data.length === 0 && <Empty><p><strong>No drafts yet.</strong></p><p>Start one above.</p></Empty>}
      {drafts.data !== undefined && drafts.data.length > 0 && (
        <div class="table-wrap">
          <table class="table" data-testid="rookery-drafts">
            <thead>
              <tr><th scope="col">Horde</th><th scope="col">Stage</th><th scope="col" class="num">Steps</th><th scope="col">How</th><th scope="col">Updated</th></tr>
            </thead>
            <tbody>
              {drafts.data.map((d) => (
                <tr key={d.id} data-testid="rookery-draft-row">
                  <th scope="row"><a href={href({ name: 'rookery', id: d.id })}>{d.display_name || d.horde_id || <span class="muted">(not named yet)</span>}</a></th>
                  <td><StageTag stage={d.stage} /></td>
                  <td class="num">{d.steps}</td>
                  <td>{d.session_id === null ? 'by hand' : 'with the builder'}</td>
                  <td>{formatTime(d.updated_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
