/**
 * Setup's adapters: each `[adapters.<name>]` section of config.toml with its state, its
 * settings and the environment variables its secrets come from (never a value), Change (a
 * form in its place, adapter-edit.tsx), Remove (asked first), and a form that adds one
 * (adapter-add.tsx). An add, a change or a remove takes effect
 * at the server's next start; switching one on or off is on the Adapters screen.
 */
import { useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { useResource } from '../hooks/use-resource';
import { useServices } from '../services';
import type { AdapterSetup, AdaptersSaved } from '../types';
import { AdapterAddForm } from './adapter-add';
import { AdapterEditForm } from './adapter-edit';
import { ErrorBox, Loading } from './status';

const STATES: Record<AdapterSetup['state'], string> = {
  running: 'running',
  error: 'error',
  disabled: 'switched off',
  off: 'not started',
  pending: 'starts at the next start of the server',
};

/** The run-state badge colours the states borrow. */
const BADGE: Record<AdapterSetup['state'], string> = { running: 'running', error: 'failed', disabled: 'cancelled', off: 'queued', pending: 'awaiting_input' };

function secretText(s: AdapterSetup['secrets'][number]): string {
  if (s.env === null) return `${s.key}: written in config.toml`;
  return `${s.key}: from $${s.env}${s.envSet ? '' : ' (not set where the server runs)'}`;
}

export function AdaptersSetup() {
  const { api } = useServices();
  const adapters = useResource(() => api.setupAdapters(), [api]);
  const [confirming, setConfirming] = useState<string | null>(null);
  const [editing, setEditing] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ error: ApiError; title: string } | null>(null);
  const [note, setNote] = useState<string | null>(null);

  const saved = (answer: AdaptersSaved, what: string) => {
    adapters.refresh();
    const restart = answer.restartNeeded ? ' It takes effect at the next start of the server.' : '';
    setNote(answer.written.comments === 'kept' ? `${what}${restart}` : `${what}${restart} ${answer.written.message}`);
  };

  const remove = async (name: string) => {
    setBusy(true);
    setError(null);
    setNote(null);
    try {
      saved(await api.removeSetupAdapter(name), `"${name}" was removed from config.toml.`);
    } catch (err) {
      setError({ error: asApiError(err), title: `"${name}" was not removed` });
    } finally {
      setBusy(false);
      setConfirming(null);
    }
  };

  return (
    <section class="panel mcp-servers" aria-labelledby="adapters-setup-title" data-testid="adapters-setup">
      <h2 id="adapters-setup-title">Adapters</h2>
      <p class="muted small">The channels of <code>[adapters.&lt;name&gt;]</code> in config.toml that bring messages to an agent (a webhook, Slack, Discord, email) or give it a calendar. Secrets come from environment variables, named here. Switch one on or off on the Adapters screen.</p>
      {adapters.data === undefined && adapters.loading && <Loading label="Loading the adapters…" />}
      {adapters.error !== undefined && <ErrorBox error={adapters.error} title="Could not read the adapters" onRetry={adapters.reload} />}
      {adapters.data !== undefined && adapters.data.length === 0 && <p class="small" data-testid="adapters-setup-none">No adapters yet.</p>}
      {adapters.data !== undefined && adapters.data.length > 0 && (
        <ul class="mcp-sign-ins__list">
          {adapters.data.map((a) => (
            <li key={a.name} class="mcp-servers__item" data-testid={`adapter-setup-${a.name}`}>
              <div class="mcp-servers__head">
                <div>
                  <strong>{a.name}</strong> <span class="muted small">{a.type}{a.agent !== null && ` → ${a.agent}`}</span>{' '}
                  <span class={`badge badge--${BADGE[a.state]}`} data-testid={`adapter-setup-${a.name}-state`}>{STATES[a.state]}</span>
                  {a.settings.length > 0 && <p class="small">{a.settings.map((s) => <span key={s.key}><code>{s.key} = {String(s.value)}</code> </span>)}</p>}
                  {a.secrets.length > 0 && <p class="muted small" data-testid={`adapter-setup-${a.name}-secrets`}>{a.secrets.map(secretText).join('; ')}</p>}
                  {a.lastError !== null && <p class="field__error small">{a.lastError}</p>}
                </div>
                <div class="mcp-servers__actions">
                  {confirming === a.name ? (
                    <>
                      <span class="small">Remove "{a.name}"?</span>
                      <button type="button" class="btn btn--small btn--danger" disabled={busy} onClick={() => { void remove(a.name); }} data-testid={`adapter-setup-${a.name}-remove-confirm`}>Remove</button>
                      <button type="button" class="btn btn--small" disabled={busy} onClick={() => setConfirming(null)} data-testid={`adapter-setup-${a.name}-remove-cancel`}>Keep</button>
                    </>
                  ) : (
                    <>
                      <button type="button" class="btn btn--small" disabled={editing === a.name} onClick={() => { setNote(null); setEditing(a.name); }} data-testid={`adapter-setup-${a.name}-edit`}>Change</button>
                      <button type="button" class="btn btn--small btn--danger-outline" disabled={busy} onClick={() => setConfirming(a.name)} data-testid={`adapter-setup-${a.name}-remove`}>Remove</button>
                    </>
                  )}
                </div>
              </div>
              {editing === a.name && (
                <AdapterEditForm adapter={a} onStart={() => setNote(null)} onCancel={() => setEditing(null)}
                  onSaved={(answer) => { setEditing(null); setError(null); saved(answer, `"${a.name}" was changed in config.toml.`); }} />
              )}
            </li>
          ))}
        </ul>
      )}
      {error !== null && <ErrorBox error={error.error} title={error.title} />}
      {note !== null && <p class="success" role="status" data-testid="adapters-setup-saved">{note}</p>}
      <AdapterAddForm onStart={() => setNote(null)} onAdded={(answer, name) => { setError(null); saved(answer, `"${name}" was added to config.toml.`); }} />
    </section>
  );
}
