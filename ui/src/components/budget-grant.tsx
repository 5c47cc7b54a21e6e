/** More model calls for a turn its budget stopped (POST …/continue): the same turn goes on from where it stopped. */
import { useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { useServices } from '../services';
import { ErrorBox } from './status';

const DEFAULT_EXTRA = 10;
const MAX_EXTRA = 1000;

export function BudgetGrant({ sessionId, onDone }: { sessionId: string; onDone: () => void }) {
  const { api } = useServices();
  const [extra, setExtra] = useState(String(DEFAULT_EXTRA));
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const n = Number(extra);
  const valid = Number.isInteger(n) && n >= 1 && n <= MAX_EXTRA;

  const grant = async (e: Event) => {
    e.preventDefault();
    if (!valid || busy) return;
    setBusy(true);
    setError(undefined);
    try {
      await api.continueChat(sessionId, n);
      onDone();
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="chat-grant" onSubmit={(e) => void grant(e)} data-testid="chat-grant">
      <div class="field field--inline">
        <label for="chat-grant-extra">More model calls</label>
        <input id="chat-grant-extra" type="number" min={1} max={MAX_EXTRA} step={1} value={extra} required
          aria-invalid={!valid} onInput={(e) => setExtra((e.target as HTMLInputElement).value)} data-testid="chat-grant-extra" />
      </div>
      <button type="submit" class="btn btn--primary" disabled={!valid || busy} data-testid="chat-grant-button">
        {busy ? 'Granting…' : 'Grant more budget'}
      </button>
      {error !== undefined && <ErrorBox error={error} title="Could not grant more budget" />}
    </form>
  );
}
