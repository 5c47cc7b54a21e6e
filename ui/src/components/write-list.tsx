/**
 * Writes to the vault, newest first: who (agent or operator), what (op, note, bytes) and
 * when. A row opens to the diff of that write, the model call that asked for it, and
 * Revert — which the server refuses with the conflicting diff when the note was changed since.
 * Reverting a create deletes the note: the app asks first.
 */
import { useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { formatCount, formatTime } from '../format';
import { useResource } from '../hooks/use-resource';
import { chatHref, href } from '../router';
import { useServices } from '../services';
import type { NoteWrite } from '../types';
import { DiffView } from './diff-view';
import { ErrorBox, Loading } from './status';
import { TraceDetailView } from './trace-detail';

export function WriteList({ writes, showPath, onChanged }: { writes: readonly NoteWrite[]; showPath: boolean; onChanged: () => void }) {
  if (writes.length === 0) return <p class="muted small" data-testid="writes-empty">No writes yet.</p>;
  return (
    <ul class="write-list" data-testid="write-list">
      {writes.map((w) => <WriteItem key={w.writeId} write={w} showPath={showPath} onChanged={onChanged} />)}
    </ul>
  );
}

function who(w: NoteWrite): string {
  if (w.agent !== null) return w.agent;
  return w.by;
}

function WriteItem({ write: w, showPath, onChanged }: { write: NoteWrite; showPath: boolean; onChanged: () => void }) {
  const [open, setOpen] = useState(false);
  const bytes = w.bytesAfter - w.bytesBefore;
  return (
    <li class={`write write--${w.state}`} data-testid={`write-${w.writeId}`}>
      <button type="button" class="write__summary" aria-expanded={open} onClick={() => setOpen(!open)}>
        <span class="write__op" data-op={w.op}>{w.op}</span>
        {showPath && <code class="write__path">{w.path}</code>}
        <span class="write__who">{who(w)}</span>
        <span class="muted small">{bytes >= 0 ? '+' : '−'}{formatCount(Math.abs(bytes))} B</span>
        <span class="muted small write__when">{formatTime(w.at)}</span>
        {w.revertedBy !== null && <span class="badge badge--cancelled">reverted by #{w.revertedBy}</span>}
        {w.reverts !== null && <span class="badge badge--cancelled">undoes #{w.reverts}</span>}
        {w.state !== 'done' && <span class={`badge ${w.state === 'failed' ? 'badge--failed' : 'badge--cancelled'}`}>{w.state}</span>}
      </button>
      {open && <WriteDetail write={w} onChanged={onChanged} />}
    </li>
  );
}

function WriteDetail({ write: w, onChanged }: { write: NoteWrite; onChanged: () => void }) {
  const { api } = useServices();
  const detail = useResource(() => api.write(w.writeId), [api, w.writeId]);
  const [showTrace, setShowTrace] = useState(false);
  const [reverting, setReverting] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [refused, setRefused] = useState<ApiError | null>(null);
  // Undoing a create removes the note it made.
  const deletes = w.op === 'create';
  const revert = async () => {
    setConfirming(false);
    setReverting(true);
    setRefused(null);
    try {
      await api.revertWrite(w.writeId);
      onChanged();
    } catch (err) {
      setRefused(asApiError(err));
    } finally {
      setReverting(false);
    }
  };
  const revertable = w.state === 'done' && w.op !== 'revert' && w.revertedBy === null;
  const conflictDiff = refused?.details.diff;
  return (
    <div class="write__detail" data-testid="write-detail">
      <p class="small">
        Write #{w.writeId} · <code>{w.path}</code> · {formatCount(w.bytesBefore)} → {formatCount(w.bytesAfter)} bytes · by {w.by}
        {w.sessionId !== null && <> · <a href={chatHref(w.sessionId)}>chat session</a></>}
        {' · '}<a href={href({ name: 'vault', note: w.path })}>open the note</a>
      </p>
      {w.error !== null && <p class="field__error" role="alert">{w.error.code}: {w.error.message}</p>}
      {detail.data === undefined && detail.loading && <Loading label="Loading the change…" />}
      {detail.error !== undefined && <ErrorBox error={detail.error} title="Could not load this write" onRetry={detail.reload} />}
      {detail.data !== undefined && <DiffView diff={detail.data.diff} testId="write-diff" />}
      <div class="write__actions">
        {revertable && (
          <button type="button" class="btn btn--small btn--danger-outline" disabled={reverting || confirming} aria-expanded={deletes ? confirming : undefined}
            onClick={() => (deletes ? setConfirming(true) : void revert())} data-testid="write-revert">
            {reverting ? 'Reverting…' : deletes ? 'Revert…' : 'Revert'}
          </button>
        )}
        {w.traceId !== null && (
          <button type="button" class="btn btn--small" aria-expanded={showTrace} onClick={() => setShowTrace(!showTrace)} data-testid="write-trace">
            {showTrace ? 'Hide the model call' : 'The model call that asked for it'}
          </button>
        )}
      </div>
      {confirming && (
        <div class="confirm" role="group" aria-labelledby={`revert-q-${w.writeId}`} data-testid="revert-confirm-panel">
          <p id={`revert-q-${w.writeId}`}><strong>Delete <code>{w.path}</code>?</strong> This write created the note, so reverting it deletes the note.</p>
          <div class="actions">
            <button type="button" class="btn btn--small btn--danger" onClick={() => void revert()} data-testid="revert-confirm">Delete the note</button>
            <button type="button" class="btn btn--small" onClick={() => setConfirming(false)}>Keep it</button>
          </div>
        </div>
      )}
      {refused !== null && (
        <div class="error-box" role="alert" data-testid="revert-refused">
          <p class="error-box__title">Not reverted: {refused.message}</p>
          <p class="small muted">{refused.code}</p>
          {typeof conflictDiff === 'string' && conflictDiff !== '' && <><p class="small">What the write left, against what the note holds now:</p><DiffView diff={conflictDiff} testId="revert-conflict-diff" /></>}
        </div>
      )}
      {showTrace && w.traceId !== null && <TraceDetailView id={w.traceId} />}
    </div>
  );
}
