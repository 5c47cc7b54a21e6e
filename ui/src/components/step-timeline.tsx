/** A run's steps in pipeline order: state, attempt, duration, summary, error, artifact. */
import { formatDuration, STEP_STATE_LABEL } from '../format';
import type { AttemptRow, RunView, StepView } from '../types';
import { FINISHED_STATES } from '../types';
import { ArtifactView } from './artifact-view';
import type { RunFailure } from './run-outcome';
import { StepStateBadge } from './badge';
import { RerunButton } from './rerun-button';

export function StepTimeline({ view, progress, failure }: { view: RunView; progress: Record<string, string>; failure: RunFailure | null }) {
  if (view.steps.length === 0) return <p class="muted">This run has no steps.</p>;
  // A run that has ended or is parked can be re-run from any of its steps that ran (one that never
  // started, after a failure, on a branch not taken or waiting for its approval, has nothing to re-run).
  const ended = FINISHED_STATES.includes(view.run.state) || view.run.state === 'awaiting_input';
  return (
    <ol class="timeline" data-testid="step-timeline">
      {view.steps.map((s) => (
        <StepItem key={s.name} runId={view.run.id} step={s} progress={progress[s.name]} canRerun={ended && s.attempt > 0}
          failure={failure?.step === s.name ? failure : null}
          isDelivery={view.delivery !== null && s.artifact === view.delivery.artifact}
          earlier={view.attempts.filter((a) => a.step === s.name && a.attempt < s.attempt)} />
      ))}
    </ol>
  );
}

interface ItemProps {
  runId: string;
  step: StepView;
  progress: string | undefined;
  earlier: AttemptRow[];
  /** The run failed here: its error is shown on this step only. */
  failure: RunFailure | null;
  /** Its artifact is the run's delivery (shown unfolded above). */
  isDelivery: boolean;
  canRerun: boolean;
}

function StepItem({ runId, step, progress, earlier, failure, isDelivery, canRerun }: ItemProps) {
  const error = failure ?? step.error;
  return (
    <li class={`timeline__step timeline__step--${step.state}${failure !== null ? ' timeline__step--failed-here' : ''}`} id={`step-${step.name}`} tabIndex={-1} data-testid={`step-${step.name}`}>
      <div class="timeline__head">
        <h3 class="timeline__name"><code>{step.name}</code> <span class="muted small">{step.kind}</span></h3>
        <StepStateBadge state={step.state} testId={`step-state-${step.name}`} />
        {step.attempt > 0 && <span class="small">attempt {step.attempt}</span>}
        {step.durationMs !== null && <span class="small muted">{formatDuration(step.durationMs)}</span>}
      </div>
      {step.state === 'running' && progress !== undefined && <p class="timeline__progress small" aria-live="polite">{progress}</p>}
      {step.summary !== null && step.summary !== '' && <p class="timeline__summary">{step.summary}</p>}
      {error !== null && (
        <p class="timeline__error" role="note" data-testid={failure !== null ? 'run-error' : undefined}>
          {failure !== null && <strong>The run failed here: </strong>}<code class="error-code">{error.code}</code> {error.message ?? ''}
        </p>
      )}
      {earlier.length > 0 && (
        <p class="small muted">
          Earlier: {earlier.map((a) => `attempt ${a.attempt} ${STEP_STATE_LABEL[a.state]}${a.errorCode === null ? '' : ` (${a.errorCode})`}`).join(', ')}
        </p>
      )}
      {canRerun && <RerunButton runId={runId} step={step.name} />}
      {step.artifact !== null && (
        <ArtifactView runId={runId} path={step.artifact} version={`${step.attempt}:${step.state}`} testId={`artifact-${step.name}`}
          {...(isDelivery ? { note: 'the delivery, shown above' } : {})} />
      )}
    </li>
  );
}
