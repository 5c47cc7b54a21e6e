/**
 * "Re-run from here" on a step of a run that has ended (or is parked): a new run whose
 * earlier steps take this run's results, optionally with the recorded model outputs
 * where a prompt is unchanged; the app then opens the new run.
 */
import { useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { navigate } from '../router';
import { useServices } from '../services';
import { ErrorBox } from './status';

export function RerunButton({ runId, step }: { runId: string; step: string }) {
  const { api } = useServices();
  const [open, setOpen] = useState(false);
  const [replay, setReplay] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);

  const start = async () => {
    setBusy(true);
    setError(null);
    try {
      const { runId: id } = await api.rerun(runId, step, replay);
      navigate({ name: 'run', id });
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };

  if (!open) {
    return (
      <button type="button" class="btn btn--small" data-testid={`rerun-${step}`} onClick={() => setOpen(true)}
        title="Start a new run from this step; the steps before it reuse this run's results">
        Re-run from here…
      </button>
    );
  }
  return (
    <div class="rerun" role="group" aria-label={`Re-run from ${step}`} data-testid={`rerun-panel-${step}`}>
      <p class="small">A new run starts at <code>{step}</code>; the steps before it reuse this run's results and files.</p>
      <label class="small">
        <input type="checkbox" checked={replay} onChange={(e) => setReplay(e.currentTarget.checked)} data-testid="rerun-replay" />{' '}
        Reuse the recorded model answers where a prompt is unchanged
      </label>
      <div class="actions">
        <button type="button" class="btn btn--small btn--primary" disabled={busy} onClick={() => { void start(); }} data-testid="rerun-start">
          {busy ? 'Starting…' : 'Start the re-run'}
        </button>
        <button type="button" class="btn btn--small" disabled={busy} onClick={() => setOpen(false)}>Keep this run</button>
      </div>
      {error !== null && <ErrorBox error={error} title="Could not start the re-run" />}
    </div>
  );
}
