/** Run and step states as badges (a colour and an icon, and always the state's name in text); tags for origin and provenance. */
import { RUN_STATE_LABEL, STEP_STATE_LABEL } from '../format';
import type { ChatState, HordeSummary, RunState, StepState } from '../types';

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

export type TagKind = 'builtin' | 'user' | 'imported' | 'invalid' | 'warning' | 'off' | 'on' | 'plain';

export function Tag({ kind, children, testId }: { kind: TagKind; children: string; testId?: string }) {
  return <span class={`tag tag--${kind}`} data-testid={testId}>{children}</span>;
}

const ORIGIN_LABEL: Record<HordeSummary['origin'], string> = { builtin: 'built-in', user: 'user', imported: 'imported' };

/** Where a horde came from: shipped with kowalski, the operator's own folder, or installed from a bundle. */
export function OriginTag({ origin }: { origin: HordeSummary['origin'] }) {
  return <Tag kind={origin} testId="horde-origin">{ORIGIN_LABEL[origin]}</Tag>;
}

const TRIGGER_PREFIX = 'trigger:';
const AGENT_PREFIX = 'agent:';

/**
 * What started a run: `api`, `cli`, a trigger (`trigger:<name>`) or a chat agent
 * (`agent:<agent>@<call>`, run_horde), each of the last two with a tag of its own.
 */
export function ProvenanceTag({ provenance }: { provenance: string }) {
  if (provenance.startsWith(AGENT_PREFIX)) {
    const agent = provenance.slice(AGENT_PREFIX.length).split('@')[0] ?? '';
    return (
      <span class="tag tag--agent" data-testid="provenance-agent" title={`Started by the agent “${agent}” in a conversation`}>
        <span aria-hidden="true">↪ </span>agent: {agent}
      </span>
    );
  }
  if (!provenance.startsWith(TRIGGER_PREFIX)) return <code class="small">{provenance}</code>;
  const name = provenance.slice(TRIGGER_PREFIX.length);
  return (
    <span class="tag tag--trigger" data-testid="provenance-trigger" title={`Started by the trigger “${name}”`}>
      <span aria-hidden="true">⏰ </span>trigger: {name}
    </span>
  );
}

const CHAT_ICON: Record<ChatState, string> = { idle: '✓', running: '▶', exhausted: '‖' };
const CHAT_LABEL: Record<ChatState, string> = { idle: 'ready', running: 'working', exhausted: 'out of budget' };
const CHAT_CLASS: Record<ChatState, string> = { idle: 'succeeded', running: 'running', exhausted: 'awaiting_input' };

/** A chat session's state: ready for a message, working on one, or stopped on its budget. */
export function ChatStateBadge({ state, testId }: { state: ChatState; testId?: string }) {
  return (
    <span class={`badge badge--${CHAT_CLASS[state]}`} data-testid={testId} data-state={state}>
      <span aria-hidden="true">{CHAT_ICON[state]}</span> {CHAT_LABEL[state]}
    </span>
  );
}
