/**
 * "Approve all" for a run with more than one parked step: once the operator says they have
 * read every command above, each step is approved in turn with the hash it was shown with
 * (never a blanket approval: a step that now waits with another command is refused).
 */
import { useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { useServices } from '../services';
import type { ApprovalRow } from '../types';
import { ErrorBox } from './status';

export function ApproveAll({ runId, pending, onDone }: { runId: string; pending: ApprovalRow[]; onDone: () => void }) {
  const { api } = useServices();
  const [read, setRead] = useState(false);
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<string[]>([]);
  const [error, setError] = useState<{ step: string; error: ApiError } | null>(null);
  if (pending.length < 2) return null;

  const approveAll = async () => {
    setBusy(true);
    setError(null);
    const approved: string[] = [];
    for (const a of pending) {
      try {
        await api.approveHash(runId, a.step, a.hash);
        approved.push(a.step);
        setDone([...approved]);
      } catch (err) {
        setError({ step: a.step, error: asApiError(err) });
        break;
      }
    }
    setBusy(false);
    setRead(false);
    onDone();
  };

  return (
    <section class="approve-all" data-testid="approve-all" aria-labelledby="approve-all-title">
      <h3 id="approve-all-title" class="h-small">{pending.length} steps wait for your approval</h3>
      <label class="check">
        <input type="checkbox" checked={read} disabled={busy} data-testid="approve-all-read" onChange={(e) => setRead(e.currentTarget.checked)} />
        {' '}I have read the {pending.length} commands below ({pending.map((a) => a.step).join(', ')})
      </label>
      <div class="actions">
        <button type="button" class="btn btn--approve" data-testid="approve-all-button" disabled={!read || busy} onClick={() => { void approveAll(); }}>
          {busy ? `Approving… (${done.length}/${pending.length})` : `Approve all ${pending.length}`}
        </button>
        <span class="small muted">Each is approved with the hash shown for it; one whose command changed is refused.</span>
      </div>
      {error !== null && <ErrorBox error={error.error} title={`Stopped at "${error.step}"${done.length > 0 ? ` after approving ${done.join(', ')}` : ''}`} />}
    </section>
  );
}
