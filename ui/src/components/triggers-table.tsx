/** A horde's triggers: kind, schedule or path, on or off. */
import { Tag } from './badge';
import type { HordeSummary, Trigger } from '../types';

export function TriggersTable({ horde }: { horde: HordeSummary }) {
  if (horde.triggers.length === 0) return <p class="muted">No triggers: this horde runs only when started by hand.</p>;
  return (
    <div class="table-wrap">
      <table class="table" data-testid="triggers-table">
        <thead>
          <tr><th scope="col">Trigger</th><th scope="col">Kind</th><th scope="col">Fires on</th><th scope="col">State</th></tr>
        </thead>
        <tbody>
          {horde.triggers.map((t) => (
            <tr key={t.name}>
              <th scope="row"><code>{t.name}</code></th>
              <td>{t.kind}</td>
              <td>{firesOn(horde.id, t)}</td>
              <td>{t.enabled ? <Tag kind="on">enabled</Tag> : <Tag kind="off">off</Tag>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function firesOn(hordeId: string, t: Trigger) {
  switch (t.kind) {
    case 'cron':
      return <><code>{t.schedule ?? '?'}</code>{t.timezone !== undefined && <span class="muted"> ({t.timezone})</span>}</>;
    case 'watch':
      return <>changes in <code>{t.path ?? '?'}</code></>;
    case 'webhook':
      return <code>POST /hooks/{hordeId}/{t.name}</code>;
  }
}
