/**
 * `#/hordes/<id>`: one horde — graph, steps, triggers (with their switches), its Markdown
 * body, the Run form, and its export as a `.kwf.zip` bundle.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { asApiError } from '../api';
import type { ApiError } from '../api';
import { OriginTag, Tag } from '../components/badge';
import { HordeGraph } from '../components/horde-graph';
import { MarkdownView } from '../components/markdown-view';
import { ProblemList } from '../components/problems';
import { RunForm } from '../components/run-form';
import { ErrorBox, Loading } from '../components/status';
import { StepsTable } from '../components/steps-table';
import { TriggersTable, triggerKey, useTriggers } from '../components/triggers-table';
import { useResource } from '../hooks/use-resource';
import { href, hordeHref } from '../router';
import { useServices } from '../services';
import type { HordeDetail, HordeOrigin } from '../types';

/** `origin`: of two hordes with one id, the one of that origin (a user's horde that lost its id to a built-in). */
export function HordeScreen({ id, origin }: { id: string; origin?: HordeOrigin | undefined }) {
  const { api } = useServices();
  const horde = useResource(() => api.horde(id, origin), [api, id, origin]);

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
  const triggers = useTriggers(horde.id, horde.valid ? horde.triggers.map((t) => triggerKey(horde.id, t.name)) : []);
  const runsLink = href({ name: 'runs', status: undefined, horde: horde.id });

  return (
    <>
      <div class="page-head page-head--row">
        <div>
          <h1 id="horde-title">{horde.displayName || horde.id}</h1>
          <p class="muted">
            <code>{horde.id}</code>{' '}
            <OriginTag origin={horde.origin} />{' '}
            {!horde.valid && <Tag kind="invalid">invalid</Tag>}{' '}
            {horde.runsCommands && (horde.confirmCommands
              ? <span class="small" data-testid="commands-note">Commands wait for your approval.</span>
              : <span class="small warn-text" data-testid="commands-note">Commands run without asking (confirm_commands = false).</span>)}
          </p>
        </div>
        <div class="actions">
          <a class="btn" href={runsLink}>Its runs</a>
          <ExportButton id={horde.id} valid={horde.valid} />
          <button type="button" class="btn btn--primary" data-testid="run-button" disabled={!horde.valid || formOpen}
            onClick={() => setFormOpen(true)} aria-expanded={formOpen}>
            Run…
          </button>
        </div>
      </div>
      {horde.origin === 'imported' && (
        <p class="small muted" data-testid="imported-note">
          Installed from a bundle: every step runs in a separate process, and its triggers arrived switched off.
        </p>
      )}
      {horde.idTakenBy !== undefined && <IdTaken id={horde.id} takenBy={horde.idTakenBy} />}
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
        <span class="legend__item legend__item--implicit">implicit (pipeline order, always: goes on after a failure)</span>
        <span class="legend__item legend__item--back">loop back (“fail ×2”: at most 2 times)</span>
      </p>}

      <h2>Steps</h2>
      <StepsTable horde={horde} />

      <h2>Triggers</h2>
      <TriggersTable horde={horde} triggers={triggers} />

      {horde.body.trim() !== '' && (
        <>
          <h2>About this horde</h2>
          <div class="panel"><MarkdownView source={horde.body} testId="horde-body" /></div>
        </>
      )}
    </>
  );
}

/** A horde whose id another horde holds: which one runs under that id, and what to do. */
function IdTaken({ id, takenBy }: { id: string; takenBy: { origin: string; dir: string } }) {
  const owner = takenBy.origin === 'builtin' ? 'built-in' : takenBy.origin;
  return (
    <div class="notice notice--warn" role="note" data-testid="id-taken">
      <p>
        The id <code>{id}</code> belongs to the <a href={hordeHref(id)}>{owner} horde</a> in <code>{takenBy.dir}</code>:
        {' '}runs of <code>{id}</code> (this app, <code>kowalski run {id}</code>, triggers) use that one, not this one.
      </p>
      <p>This horde cannot run until you give it another <code>id</code> in its <code>horde.md</code>.</p>
    </div>
  );
}

/** How long a bundle's blob URL is kept after its download started, in ms. */
const BLOB_KEEP_MS = 60_000;

/** Downloads the horde as `<id>.kwf.zip`, fetched with the auth header (a plain link could not carry it). */
function ExportButton({ id, valid }: { id: string; valid: boolean }) {
  const { api } = useServices();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | null>(null);
  const urls = useRef<string[]>([]);
  useEffect(() => () => { for (const u of urls.current) URL.revokeObjectURL(u); }, []);

  const exportIt = async () => {
    setBusy(true);
    setError(null);
    try {
      const blob = await api.exportBundle(id);
      const url = URL.createObjectURL(blob);
      urls.current.push(url);
      const a = document.createElement('a');
      a.href = url;
      a.download = `${id}.kwf.zip`;
      a.hidden = true;
      document.body.append(a);
      a.click();
      a.remove();
      setTimeout(() => {
        URL.revokeObjectURL(url);
        urls.current = urls.current.filter((u) => u !== url);
      }, BLOB_KEEP_MS);
    } catch (err) {
      setError(asApiError(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <button type="button" class="btn" data-testid="export-bundle" disabled={busy || !valid} onClick={() => { void exportIt(); }}
        title={valid ? `Download this horde as ${id}.kwf.zip, to import on another machine` : 'An invalid horde cannot be exported: fix the problems listed below first'}>
        {busy ? 'Exporting…' : 'Export bundle'}
      </button>
      {error !== null && (
        <p class="field__error export-error" role="alert" data-testid="export-error">
          Could not export: <code class="error-code">{error.code}</code> {error.message}
        </p>
      )}
    </>
  );
}
