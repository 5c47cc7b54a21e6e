/**
 * What a run came to, first on its screen: the outcome in one line, then the delivery (its
 * main artifact) unfolded, with where it and the other outputs are on disk. The run's error
 * is shown once: on the step where it happened when one did, else here.
 */
import type { RunView } from '../types';
import { FINISHED_STATES } from '../types';
import { ArtifactView } from './artifact-view';

/** Where the run failed, when one step is where: its error is shown on that step only. */
export interface RunFailure {
  step: string;
  code: string;
  message: string;
}

/**
 * The step the run's error is about: the one whose own error it is (the engine words it
 * `step "<name>" failed: <message>`), or the one it names first when that step has no
 * error of its own (`step "<name>" failed (…) and no fail edge leads anywhere`). Else null.
 */
export function failedStep(view: RunView): RunFailure | null {
  const { errorCode: code, error } = view.run;
  if (code === null || error === null) return null;
  for (const s of view.steps) {
    if (s.error !== null && s.error.code === code && (error === s.error.message || error === `step "${s.name}" failed: ${s.error.message ?? ''}`)) {
      return { step: s.name, code, message: s.error.message ?? '' };
    }
    if (s.error === null && error.startsWith(`step "${s.name}" `)) return { step: s.name, code, message: error };
  }
  return null;
}

function goToStep(name: string): void {
  const el = document.getElementById(`step-${name}`);
  el?.scrollIntoView({ block: 'center' });
  el?.focus();
}

export function RunOutcome({ view, failure }: { view: RunView; failure: RunFailure | null }) {
  const { run } = view;
  const running = view.steps.filter((s) => s.state === 'running').map((s) => s.name);
  return (
    <div class={`outcome outcome--${run.state}`} data-testid="run-outcome" data-state={run.state}>
      {run.state === 'succeeded' && <p class="outcome__line">Succeeded.</p>}
      {run.state === 'queued' && <p class="outcome__line">Queued: it starts when a step slot is free.</p>}
      {run.state === 'running' && <p class="outcome__line">Running{running.length > 0 ? <>: <code>{running.join(', ')}</code></> : ''}.</p>}
      {run.state === 'awaiting_input' && (
        <p class="outcome__line">Waiting for you: {view.pending.length === 1 ? 'one step asks' : `${view.pending.length} steps ask`} for approval below.</p>
      )}
      {(run.state === 'failed' || run.state === 'cancelled') && (
        <p class="outcome__line">
          {run.state === 'failed' ? 'Failed' : 'Cancelled'}
          {failure !== null && <> at step <button type="button" class="link" data-testid="failed-step-link" onClick={() => goToStep(failure.step)}><code>{failure.step}</code></button>; its error is shown there</>}.
        </p>
      )}
      {failure === null && run.errorCode !== null && (
        <p class="error-box" role="note" data-testid="run-error"><code class="error-code">{run.errorCode}</code> {run.error ?? ''}</p>
      )}
    </div>
  );
}

export function RunDelivery({ view }: { view: RunView }) {
  const { delivery, run } = view;
  const finished = FINISHED_STATES.includes(run.state);
  const from = view.steps.find((s) => s.name === delivery?.step);
  const version = `${run.state}:${from?.attempt ?? 0}:${from?.state ?? ''}`;
  return (
    <section class="panel delivery" data-testid="delivery" aria-labelledby="delivery-title">
      <h2 id="delivery-title" class="h-small">{delivery?.title ?? 'Delivery'}</h2>
      {delivery === null
        ? <p class="muted" data-testid="no-delivery">{finished ? 'No delivery: no step passed with an artifact. The steps below keep what they wrote.' : 'The delivery shows here once a step has written it.'}</p>
        : (
          <>
            <dl class="kv">
              <div class="kv__row"><dt>File</dt><dd><code data-testid="delivery-path">{delivery.path}</code>{delivery.step !== null && <span class="muted small"> (from step <code>{delivery.step}</code>)</span>}</dd></div>
              <div class="kv__row"><dt>All outputs</dt><dd><code data-testid="outputs-path">{view.workdir}</code></dd></div>
            </dl>
            <ArtifactView runId={run.id} path={delivery.artifact} version={version} testId="delivery-artifact" open />
          </>
        )}
    </section>
  );
}
