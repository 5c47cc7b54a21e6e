/** A run's steps in pipeline order: state, attempt, duration, summary, error, artifact. */
import { formatDuration, STEP_STATE_LABEL } from '../format';
import type { AttemptRow, RunView, StepView } from '../types';
import { FINISHED_STATES } from '../types';
import { ArtifactView } from './artifact-view';
import { StepStateBadge } from './badge';
import { RerunButton } from './rerun-button';

export function StepTimeline({ view, progress }: { view: RunView; progress: Record<string, string> }) {
  if (view.steps.length === 0) return <p class="muted">This run has no steps.</p>;
  // A run that has ended or is parked can be re-run from any of its steps.
  const canRerun = FINISHED_STATES.includes(view.run.state) || view.run.state === 'awaiting_input';
  return (
    <ol class="timeline" data-testid="step-timeline">
      {view.steps.map((s) => (
        <StepItem key={s.name} runId={view.run.id} step={s} progress={progress[s.name]} canRerun={canRerun}
          earlier={view.attempts.filter((a) => a.step === s.name && a.attempt < s.attempt)} />
      ))}
    </ol>
  );
}

function StepItem({ runId, step, progress, earlier, canRerun }: { runId: string; step: StepView; progress: string | undefined; earlier: AttemptRow[]; canRerun: boolean }) {
  return (
    <li class={`timeline__step timeline__step--${step.state}`} data-testid={`step-${step.name}`}>
      <div class="timeline__head">
        <h3 class="timeline__name"><code>{step.name}</code> <span class="muted small">{step.kind}</span></h3>
        <StepStateBadge state={step.state} testId={`step-state-${step.name}`} />
        {step.attempt > 0 && <span class="small">attempt {step.attempt}</span>}
        {step.durationMs !== null && <span class="small muted">{formatDuration(step.durationMs)}</span>}
      </div>
      {step.state === 'running' && progress !== undefined && <p class="timeline__progress small" aria-live="polite">{progress}</p>}
      {step.summary !== null && step.summary !== '' && <p class="timeline__summary">{step.summary}</p>}
      {step.error !== null && (
        <p class="timeline__error" role="note"><code class="error-code">{step.error.code}</code> {step.error.message ?? ''}</p>
      )}
      {earlier.length > 0 && (
        <p class="small muted">
          Earlier: {earlier.map((a) => `attempt ${a.attempt} ${STEP_STATE_LABEL[a.state]}${a.errorCode === null ? '' : ` (${a.errorCode})`}`).join(', ')}
        </p>
      )}
      {canRerun && <RerunButton runId={runId} step={step.name} />}
      {step.artifact !== null && (
        <ArtifactView runId={runId} path={step.artifact} version={`${step.attempt}:${step.state}`} testId={`artifact-${step.name}`} />
      )}
    </li>
  );
}
