/** Cancel (after a confirmation) for unfinished runs; Resume for a queued one (a running run is going: nothing to resume). */
import { useEffect, useRef, useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { useServices } from '../services';
import type { RunRow } from '../types';
import { FINISHED_STATES } from '../types';
import { ErrorBox } from './status';

export function RunActions({ run, onDone }: { run: RunRow; onDone: () => void }) {
  const { api } = useServices();
  const [confirming, setConfirming] = useState(false);
  const [reason, setReason] = useState('');
  const [busy, setBusy] = useState<'cancel' | 'resume' | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [note, setNote] = useState<string | null>(null);
  const reasonInput = useRef<HTMLInputElement>(null);

  useEffect(() => { if (confirming) reasonInput.current?.focus(); }, [confirming]);

  if (FINISHED_STATES.includes(run.state)) return null;
  const canResume = run.state === 'queued';

  const act = async (kind: 'cancel' | 'resume') => {
    setBusy(kind);
    setError(null);
    setNote(null);
    try {
      const res = kind === 'cancel' ? await api.cancel(run.id, reason.trim()) : await api.resume(run.id);
      setNote(kind === 'cancel' ? `Cancelled (now ${res.state}).` : `Resume asked; the run is ${res.state}.`);
      setConfirming(false);
      onDone();
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(null);
    }
  };

  return (
    <div class="run-actions">
      <div class="actions">
        {canResume && (
          <button type="button" class="btn" data-testid="resume-button" disabled={busy !== null} onClick={() => { void act('resume'); }}
            title="Continue a run that is not loaded (e.g. after a crash)">
            {busy === 'resume' ? 'Resuming…' : 'Resume'}
          </button>
        )}
        <button type="button" class="btn btn--danger-outline" data-testid="cancel-button" disabled={busy !== null || confirming}
          onClick={() => setConfirming(true)} aria-expanded={confirming}>
          Cancel run…
        </button>
      </div>
      {confirming && (
        <div class="confirm" role="group" aria-labelledby="cancel-q" data-testid="cancel-confirm-panel">
          <p id="cancel-q"><strong>Cancel this run?</strong> Running steps are stopped and it cannot be continued.</p>
          <div class="field">
            <label for="cancel-reason">Reason <span class="muted small">(optional)</span></label>
            <input ref={reasonInput} id="cancel-reason" type="text" value={reason} onInput={(e) => setReason(e.currentTarget.value)} data-testid="cancel-reason" />
          </div>
          <div class="actions">
            <button type="button" class="btn btn--danger" data-testid="cancel-confirm" disabled={busy !== null} onClick={() => { void act('cancel'); }}>
              {busy === 'cancel' ? 'Cancelling…' : 'Yes, cancel the run'}
            </button>
            <button type="button" class="btn" onClick={() => setConfirming(false)} disabled={busy !== null}>Keep it</button>
          </div>
        </div>
      )}
      {note !== null && <p class="success" role="status">{note}</p>}
      {error !== null && <ErrorBox error={error} title="That did not go through" />}
    </div>
  );
}
