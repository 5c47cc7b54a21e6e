/** Run and step states as badges: a colour and an icon, and always the state's name in text. */
import { RUN_STATE_LABEL, STEP_STATE_LABEL } from '../format';
import type { RunState, StepState } from '../types';

const RUN_ICON: Record<RunState, string> = {
  queued: '○', running: '▶', awaiting_input: '‖', succeeded: '✓', failed: '✕', cancelled: '⊘',
};
const STEP_ICON: Record<StepState, string> = {
  pending: '○', running: '▶', passed: '✓', failed: '✕', interrupted: '!', cancelled: '⊘', awaiting_approval: '‖',
};

export function RunStateBadge({ state, testId }: { state: RunState; testId?: string }) {
  return (
    <span class={`badge badge--${state}`} data-testid={testId} data-state={state}>
      <span aria-hidden="true">{RUN_ICON[state]}</span> {RUN_STATE_LABEL[state]}
    </span>
  );
}

export function StepStateBadge({ state, testId }: { state: StepState; testId?: string }) {
  return (
    <span class={`badge badge--step-${state}`} data-testid={testId} data-state={state}>
      <span aria-hidden="true">{STEP_ICON[state]}</span> {STEP_STATE_LABEL[state]}
    </span>
  );
}

export function Tag({ kind, children }: { kind: 'builtin' | 'user' | 'invalid' | 'warning' | 'off' | 'on' | 'plain'; children: string }) {
  return <span class={`tag tag--${kind}`}>{children}</span>;
}
