/** Small pieces of the Rookery tab: a draft's stage as a tag, its problems inline (each with its key), the notice when no model is configured. */
import { Tag } from './badge';
import type { TagKind } from './badge';
import type { DraftProblem, RookeryStage } from '../types';

const STAGE: Record<RookeryStage, { kind: TagKind; label: string }> = {
  interview: { kind: 'off', label: 'interview' },
  proposed: { kind: 'on', label: 'proposed' },
  born: { kind: 'user', label: 'born' },
};

/** Where a draft stands: still being worked out, one that validates, or a horde written. */
export function StageTag({ stage, testId }: { stage: RookeryStage; testId?: string }) {
  const s = STAGE[stage];
  return <Tag kind={s.kind} {...(testId === undefined ? {} : { testId })}>{s.label}</Tag>;
}

/** Problems next to what they are about: the key, the message, the code. */
export function InlineProblems({ problems, testId }: { problems: DraftProblem[]; testId?: string }) {
  if (problems.length === 0) return null;
  return (
    <ul class="problems" data-testid={testId}>
      {problems.map((p, i) => (
        <li key={i} class={`problem problem--${p.severity}`} data-key={p.key}>
          <span class="problem__severity">{p.severity}</span>{' '}
          {p.key !== undefined && <code>{p.key}</code>} — {p.message} <code class="muted">{p.code}</code>
        </li>
      ))}
    </ul>
  );
}

/** The builder needs a model; the editor does not. */
export function NoModelNotice() {
  return (
    <p class="notice" data-testid="rookery-no-model">
      No model is configured, so the builder cannot talk with you. <a href="#/setup">Choose a model in Setup</a>, or build the horde by hand: the editor works without one.
    </p>
  );
}
