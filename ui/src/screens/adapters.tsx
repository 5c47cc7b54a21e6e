/**
 * `#/adapters`: the inbound channels configured in config.toml — each one's type, agent,
 * state (running, stopped, error), last error, last activity and error count, with a
 * switch to turn it on or off at run time. Read again when the server says they changed
 * (the websocket's `changed` frames).
 */
import { useState } from 'preact/hooks';
import { asApiError } from '../api';
import { ErrorBox, Loading } from '../components/status';
import { formatTime } from '../format';
import { useChanged } from '../hooks/use-changed';
import { useResource } from '../hooks/use-resource';
import { useServices } from '../services';
import type { AdapterStatus } from '../types';

/** The run-state badge colours the states borrow. */
const STATE_BADGE: Record<AdapterStatus['state'], string> = { running: 'succeeded', stopped: 'cancelled', error: 'failed' };

export function AdaptersScreen() {
  const { api } = useServices();
  const list = useResource(() => api.adapters(), [api]);
  useChanged('adapters', list.refresh);
  return (
    <section aria-labelledby="adapters-title">
      <div class="page-head">
        <h1 id="adapters-title">Adapters</h1>
        <p class="muted">Channels that bring messages to your agents: each one answers with the agent it names. Configure them under <code>[adapters.&lt;name&gt;]</code> in config.toml.</p>
      </div>
      {list.data === undefined && list.loading && <Loading label="Loading the adapters…" />}
      {list.data === undefined && list.error !== undefined && <ErrorBox error={list.error} title="Could not load the adapters" onRetry={list.reload} />}
      {list.data !== undefined && list.data.length === 0 && (
        <p class="muted" data-testid="adapters-empty">No adapter is configured. Add an <code>[adapters.&lt;name&gt;]</code> section to config.toml and restart the server.</p>
      )}
      {list.data !== undefined && list.data.length > 0 && (
        <div class="table-wrap">
          <table class="table" data-testid="adapters-table">
            <thead>
              <tr>
                <th scope="col">Adapter</th><th scope="col">Type</th><th scope="col">Agent</th><th scope="col">State</th>
                <th scope="col">Last activity</th><th scope="col">Errors</th><th scope="col">On</th>
              </tr>
            </thead>
            <tbody>{list.data.map((a) => <AdapterRow key={a.name} adapter={a} onChanged={list.refresh} />)}</tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function AdapterRow({ adapter, onChanged }: { adapter: AdapterStatus; onChanged: () => void }) {
  const { api } = useServices();
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const toggle = (): void => {
    setBusy(true);
    setProblem(null);
    (adapter.enabled ? api.disableAdapter(adapter.name) : api.enableAdapter(adapter.name))
      .catch((err: unknown) => setProblem(asApiError(err).message))
      .finally(() => {
        setBusy(false);
        onChanged();
      });
  };
  return (
    <tr data-testid={`adapter-row-${adapter.name}`}>
      <th scope="row" class="nowrap"><code>{adapter.name}</code></th>
      <td>{adapter.type}</td>
      <td class="nowrap">{adapter.agent === null ? <span class="muted">none</span> : <code>{adapter.agent}</code>}</td>
      <td data-testid={`adapter-state-${adapter.name}`}>
        <span class={`badge badge--${STATE_BADGE[adapter.state]}`}>{adapter.state}</span>
        {adapter.lastError !== null && <p class="small warn-text" data-testid={`adapter-error-${adapter.name}`}>{adapter.lastError}{adapter.lastErrorAt === null ? '' : ` (${formatTime(adapter.lastErrorAt)})`}</p>}
        {problem !== null && <p class="small warn-text" role="alert">{problem}</p>}
      </td>
      <td>{adapter.lastActivityAt === null ? <span class="muted">never</span> : formatTime(adapter.lastActivityAt)}</td>
      <td>{adapter.errorCount}</td>
      <td>
        <button type="button" role="switch" aria-checked={adapter.enabled} class={adapter.enabled ? 'switch switch--on' : 'switch'}
          aria-label={`Adapter ${adapter.name}`} aria-busy={busy} disabled={busy} onClick={toggle} data-testid={`adapter-toggle-${adapter.name}`}>
          <span class="switch__track" aria-hidden="true"><span class="switch__thumb" /></span>
          <span class="switch__label" aria-hidden="true">{adapter.enabled ? 'On' : 'Off'}</span>
        </button>
      </td>
    </tr>
  );
}
