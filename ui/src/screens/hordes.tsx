/**
 * `#/hordes`: every horde — built-in, the operator's own, imported — with the problems of
 * invalid ones, and each trigger's switch and next firing; above them, a notice while no model is set up.
 */
import { OriginTag, Tag } from '../components/badge';
import { NoModelNotice } from '../components/no-model-notice';
import { ProblemList } from '../components/problems';
import { Empty, ErrorBox, Loading } from '../components/status';
import { TriggerList, triggerKey, useTriggers } from '../components/triggers-table';
import type { Triggers } from '../components/triggers-table';
import { useResource } from '../hooks/use-resource';
import { plural } from '../format';
import { hordeHref } from '../router';
import { useServices } from '../services';
import type { HordeSummary } from '../types';

export function HordesScreen() {
  const { api } = useServices();
  const hordes = useResource(() => api.hordes(), [api]);
  const triggers = useTriggers(undefined, (hordes.data ?? []).filter((h) => h.valid).flatMap((h) => h.triggers.map((t) => triggerKey(h.id, t.name))));

  return (
    <section aria-labelledby="hordes-title">
      <div class="page-head page-head--row">
        <div>
          <h1 id="hordes-title">Hordes</h1>
          <p class="muted">Workflows you can run. Open one to see its steps and start a run.</p>
        </div>
        <div class="actions"><a class="btn" href="#/import">Import a bundle…</a></div>
      </div>
      <NoModelNotice />
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
          {hordes.data.map((h) => <HordeCard key={`${h.id}:${h.origin}`} horde={h} triggers={triggers} />)}
        </ul>
      )}
    </section>
  );
}

function HordeCard({ horde, triggers }: { horde: HordeSummary; triggers: Triggers }) {
  return (
    <li class={horde.valid ? 'card' : 'card card--invalid'} data-testid={horde.idTakenBy === undefined ? `horde-card-${horde.id}` : `horde-card-${horde.id}-${horde.origin}`}>
      <div class="card__head">
        <h2 class="card__title"><a href={hordeHref(horde.id, horde.idTakenBy === undefined ? undefined : horde.origin)}>{horde.displayName || horde.id}</a></h2>
        <div class="card__tags">
          <OriginTag origin={horde.origin} />
          {!horde.valid && <Tag kind="invalid">invalid</Tag>}
        </div>
      </div>
      <p class="card__id"><code>{horde.id}</code></p>
      {horde.description !== '' && <p class="card__desc">{horde.description}</p>}
      <p class="muted small">
        {plural(horde.stepCount, 'step')} · {horde.triggers.length === 0 ? 'no triggers' : plural(horde.triggers.length, 'trigger')}
      </p>
      <TriggerList horde={horde} triggers={triggers} />
      {horde.problems.length > 0 && <ProblemList problems={horde.problems} />}
    </li>
  );
}
