/** `#/hordes/<id>`: one horde — graph, steps, triggers, its Markdown body, and the Run form. */
import { useState } from 'preact/hooks';
import { Tag } from '../components/badge';
import { HordeGraph } from '../components/horde-graph';
import { MarkdownView } from '../components/markdown-view';
import { ProblemList } from '../components/problems';
import { RunForm } from '../components/run-form';
import { ErrorBox, Loading } from '../components/status';
import { StepsTable } from '../components/steps-table';
import { TriggersTable } from '../components/triggers-table';
import { useResource } from '../hooks/use-resource';
import { href } from '../router';
import { useServices } from '../services';
import type { HordeDetail } from '../types';

export function HordeScreen({ id }: { id: string }) {
  const { api } = useServices();
  const horde = useResource(() => api.horde(id), [api, id]);

  return (
    <section aria-labelledby="horde-title">
      <p class="crumbs"><a href="#/hordes">Hordes</a> <span aria-hidden="true">/</span> <code>{id}</code></p>
      {horde.data === undefined && horde.loading && <Loading label="Loading the horde…" />}
      {horde.data === undefined && horde.error !== undefined && (
        <>
          <h1 id="horde-title">{id}</h1>
          <ErrorBox error={horde.error} title="Could not load this horde" onRetry={horde.reload} />
        </>
      )}
      {horde.data !== undefined && <HordeBody horde={horde.data} />}
    </section>
  );
}

function HordeBody({ horde }: { horde: HordeDetail }) {
  const [formOpen, setFormOpen] = useState(false);
  const runsLink = href({ name: 'runs', status: undefined, horde: horde.id });

  return (
    <>
      <div class="page-head page-head--row">
        <div>
          <h1 id="horde-title">{horde.displayName || horde.id}</h1>
          <p class="muted">
            <code>{horde.id}</code>{' '}
            <Tag kind={horde.origin === 'builtin' ? 'builtin' : 'user'}>{horde.origin === 'builtin' ? 'built-in' : 'user'}</Tag>{' '}
            {!horde.valid && <Tag kind="invalid">invalid</Tag>}{' '}
            {horde.confirmCommands ? <span class="small">Commands wait for your approval.</span> : <span class="small warn-text">Commands run without asking (confirm_commands = false).</span>}
          </p>
        </div>
        <div class="actions">
          <a class="btn" href={runsLink}>Its runs</a>
          <button type="button" class="btn btn--primary" data-testid="run-button" disabled={!horde.valid || formOpen}
            onClick={() => setFormOpen(true)} aria-expanded={formOpen}>
            Run…
          </button>
        </div>
      </div>
      {horde.description !== '' && <p class="lead">{horde.description}</p>}
      {!horde.valid && (
        <div class="error-box" role="alert">
          <p class="error-box__title">This horde is invalid and cannot run until these are fixed:</p>
          <ProblemList problems={horde.problems} />
        </div>
      )}
      {horde.valid && horde.problems.length > 0 && <ProblemList problems={horde.problems} />}
      {formOpen && <RunForm horde={horde} onClose={() => setFormOpen(false)} />}

      <h2>Graph</h2>
      {horde.pipeline.length === 0 ? <p class="muted">No steps.</p> : <HordeGraph horde={horde} />}
      {horde.pipeline.length > 0 && <p class="muted small legend">
        <span class="legend__item legend__item--pass">pass</span>
        <span class="legend__item legend__item--fail">fail</span>
        <span class="legend__item legend__item--implicit">implicit (pipeline order)</span>
        <span class="legend__item legend__item--back">loop back (“fail ×2”: at most 2 times)</span>
      </p>}

      <h2>Steps</h2>
      <StepsTable horde={horde} />

      <h2>Triggers</h2>
      <TriggersTable horde={horde} />

      {horde.body.trim() !== '' && (
        <>
          <h2>About this horde</h2>
          <div class="panel"><MarkdownView source={horde.body} testId="horde-body" /></div>
        </>
      )}
    </>
  );
}
