/**
 * A review step waiting on the operator: the previous step's artifact as it is (from
 * `GET /api/runs/:id/review`), with Approve (sent with the hash of the text shown), Deny
 * (a reason is required) and Edit → "Save edit and approve" (`POST /api/runs/:id/review`
 * with that same hash). A stale answer (KW_ERR_REVIEW_STALE: the file changed since) is
 * shown with a Reload that fetches the file again.
 */
import { useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { formatTime } from '../format';
import { useResource } from '../hooks/use-resource';
import { useServices } from '../services';
import type { ApprovalRow, ReviewView } from '../types';
import { DenyField } from './deny-field';
import { ErrorBox } from './status';

type Busy = 'approve' | 'deny' | 'save' | null;

export function ReviewPanel({ runId, approval, onDone }: { runId: string; approval: ApprovalRow; onDone: () => void }) {
  const { api } = useServices();
  const step = approval.step;
  const review = useResource(() => api.review(runId, step), [api, runId, step, approval.hash]);
  const [editing, setEditing] = useState<string | null>(null);
  const [busy, setBusy] = useState<Busy>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const view = review.data;

  const send = async (kind: Exclude<Busy, null>, call: () => Promise<unknown>) => {
    setBusy(kind);
    setError(null);
    try {
      await call();
      onDone();
    } catch (err) {
      setError(asApiError(err));
      setBusy(null);
    }
  };
  const reload = () => {
    setError(null);
    setEditing(null);
    review.reload();
    onDone();
  };

  return (
    <section class="approval review" data-testid="review-panel" data-step={step} aria-labelledby={`review-${step}`}>
      <h3 id={`review-${step}`}>Waiting for your review: <code>{step}</code></h3>
      <p class="approval__why">Read the artifact below before the run goes on: approve it as it is, edit it and approve the edit, or deny it.</p>
      {review.loading && <p class="muted" role="status">Loading the artifact…</p>}
      {review.error !== undefined && <ErrorBox error={review.error} title="Could not load the artifact under review" onRetry={review.reload} />}
      {view !== undefined && (
        <>
          <dl class="kv">
            <div class="kv__row"><dt>File</dt><dd><code data-testid="review-path">{view.path}</code>{view.bytes !== null && <span class="muted small"> ({view.bytes} bytes)</span>}</dd></div>
            <div class="kv__row"><dt>Hash</dt><dd><code class="hash" data-testid="review-hash">{view.hash}</code></dd></div>
            <div class="kv__row"><dt>Asked</dt><dd>{formatTime(approval.requestedAt)}</dd></div>
          </dl>
          {view.changed && (
            <p class="field__error" role="alert" data-testid="review-changed">
              {view.path} changed on disk since the run parked on it: approving would fail the step. Deny it, or cancel the run.
            </p>
          )}
          <ReviewText view={view} editing={editing} busy={busy !== null} onInput={setEditing} />
        </>
      )}
      {error !== null && (
        <div data-testid="review-error">
          <ErrorBox error={error} title={error.code === 'KW_ERR_REVIEW_STALE' ? 'The artifact is not the one you read: nothing was approved' : 'That did not go through'} />
          {error.code === 'KW_ERR_REVIEW_STALE' && (
            <button type="button" class="btn" data-testid="review-reload" onClick={reload}>Reload the artifact</button>
          )}
        </div>
      )}
      {view !== undefined && (
        <div class="approval__decide">
          {editing === null ? (
            <>
              <button type="button" class="btn btn--approve" data-testid="review-approve" disabled={busy !== null}
                onClick={() => { void send('approve', () => api.approveHash(runId, step, view.hash)); }}>
                {busy === 'approve' ? 'Approving…' : 'Approve'}
              </button>
              <button type="button" class="btn" data-testid="review-edit" disabled={busy !== null || view.content === null}
                onClick={() => { setError(null); setEditing(view.content ?? ''); }}>Edit</button>
            </>
          ) : (
            <>
              <button type="button" class="btn btn--approve" data-testid="review-save" disabled={busy !== null}
                onClick={() => { void send('save', () => api.reviewEdit(runId, step, view.hash, editing)); }}>
                {busy === 'save' ? 'Saving…' : 'Save edit and approve'}
              </button>
              <button type="button" class="btn" data-testid="review-edit-cancel" disabled={busy !== null}
                onClick={() => { setError(null); setEditing(null); }}>Discard edit</button>
            </>
          )}
          <DenyField step={step} busy={busy !== null} denying={busy === 'deny'} onDeny={(reason) => { void send('deny', () => api.deny(runId, reason, step)); }} />
        </div>
      )}
    </section>
  );
}

/** The artifact's text, or the textarea editing it; a file too large (or gone) is named, not shown. */
function ReviewText({ view, editing, busy, onInput }: { view: ReviewView; editing: string | null; busy: boolean; onInput: (text: string) => void }) {
  if (view.content === null) {
    return (
      <p class="muted" data-testid="review-content-missing">
        {view.bytes === null ? `${view.path} is gone.` : `${view.path} is too large to show here.`} Read it with <code>kowalski review {view.runId} --step {view.step}</code>.
      </p>
    );
  }
  if (editing === null) return <pre class="pre review__text" data-testid="review-content">{view.content}</pre>;
  const id = `review-text-${view.step}`;
  return (
    <div class="field review__edit">
      <label for={id}>Your edit of <code>{view.path}</code></label>
      <textarea id={id} class="editor-text" data-testid="review-textarea" value={editing} disabled={busy} spellcheck={false}
        onInput={(e) => onInput(e.currentTarget.value)} />
    </div>
  );
}
