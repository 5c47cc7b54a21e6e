/**
 * A plugin's audit (`GET /api/plugins/:name`): every grant and revoke, newest first — who,
 * when, which version and which permissions (the first characters of their hash).
 * Read again whenever `stamp` (the plugin's state and grant time) changes.
 */
import { formatTime } from '../format';
import { useResource } from '../hooks/use-resource';
import { useServices } from '../services';
import { ErrorBox, Loading } from './status';

/** How many hex digits of a permissions hash are shown (the whole one is the cell's title). */
const HASH_SHOWN = 12;

export function PluginAudit({ name, stamp }: { name: string; stamp: string }) {
  const { api } = useServices();
  const view = useResource(() => api.plugin(name), [api, name, stamp]);
  if (view.data === undefined && view.loading) return <Loading label="Loading its history…" />;
  if (view.data === undefined && view.error !== undefined) return <ErrorBox error={view.error} title="Could not load its history" onRetry={view.reload} />;
  const audit = [...(view.data?.audit ?? [])].reverse();
  if (audit.length === 0) return <p class="small muted" data-testid={`plugin-audit-${name}`}>Never granted.</p>;
  return (
    <div class="table-wrap plugin__audit">
      <table class="table" data-testid={`plugin-audit-${name}`}>
        <caption class="small muted">Grants and revokes, newest first</caption>
        <thead><tr><th scope="col">When</th><th scope="col">Who</th><th scope="col">What</th></tr></thead>
        <tbody>
          {audit.map((a, i) => (
            <tr key={i}>
              <td>{formatTime(a.at)}</td>
              <td>{a.by}</td>
              <td>
                {a.action === 'grant' ? 'granted' : 'revoked'} {a.version}, permissions <code title={a.permissionsHash}>{a.permissionsHash.slice(0, HASH_SHOWN)}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
