/** `#/hordes`: every horde, built-in and the operator's own, with the problems of invalid ones. */
import { Tag } from '../components/badge';
import { ProblemList } from '../components/problems';
import { Empty, ErrorBox, Loading } from '../components/status';
import { useResource } from '../hooks/use-resource';
import { plural } from '../format';
import { hordeHref } from '../router';
import { useServices } from '../services';
import type { HordeSummary } from '../types';

export function HordesScreen() {
  const { api } = useServices();
  const hordes = useResource(() => api.hordes(), [api]);

  return (
    <section aria-labelledby="hordes-title">
      <div class="page-head">
        <h1 id="hordes-title">Hordes</h1>
        <p class="muted">Workflows you can run. Open one to see its steps and start a run.</p>
      </div>
      {hordes.data === undefined && hordes.loading && <Loading label="Loading hordes…" />}
      {hordes.data === undefined && hordes.error !== undefined && (
        <ErrorBox error={hordes.error} title="Could not load the hordes" onRetry={hordes.reload} />
      )}
      {hordes.data !== undefined && hordes.data.length === 0 && (
        <Empty>
          <p><strong>No hordes yet.</strong></p>
          <p>Put a horde folder (with a <code>horde.md</code>) in the <code>hordes/</code> folder of kowalski's data directory, then reload.</p>
        </Empty>
      )}
      {hordes.data !== undefined && hordes.data.length > 0 && (
        <ul class="cards">
          {hordes.data.map((h) => <HordeCard key={h.id} horde={h} />)}
        </ul>
      )}
    </section>
  );
}

function HordeCard({ horde }: { horde: HordeSummary }) {
  return (
    <li class={horde.valid ? 'card' : 'card card--invalid'} data-testid={`horde-card-${horde.id}`}>
      <div class="card__head">
        <h2 class="card__title"><a href={hordeHref(horde.id)}>{horde.displayName || horde.id}</a></h2>
        <div class="card__tags">
          <Tag kind={horde.origin === 'builtin' ? 'builtin' : 'user'}>{horde.origin === 'builtin' ? 'built-in' : 'user'}</Tag>
          {!horde.valid && <Tag kind="invalid">invalid</Tag>}
        </div>
      </div>
      <p class="card__id"><code>{horde.id}</code></p>
      {horde.description !== '' && <p class="card__desc">{horde.description}</p>}
      <p class="muted small">
        {plural(horde.stepCount, 'step')} · {plural(horde.triggers.length, 'trigger')}
        {horde.triggers.some((t) => t.enabled) && ` (${horde.triggers.filter((t) => t.enabled).length} enabled)`}
      </p>
      {horde.problems.length > 0 && <ProblemList problems={horde.problems} />}
    </li>
  );
}
