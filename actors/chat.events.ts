/**
 * The chat session machine's events: a closed union tagged by `type`, stored in the
 * session's log (engine/chat/events.ts wraps each in a versioned envelope). Folding a
 * session's events through the machine rebuilds it: what was said, and for the turn in
 * progress every model call and tool call already made, so a resumed turn takes them
 * from here and never makes a finished one again.
 *
 * A turn is a tree of agents: the root node `r` is the session's agent; a delegation
 * asked for by tool call `index` of model call `seq` of node `n` runs as node
 * `n/seq.index`. Node ids are therefore the same every time the turn is replayed.
 */
import type { EventError } from './run.events.js';
import type { ChatStop, TurnUsage, UndoneWork } from '../contract/chat.js';
export type { ChatStop, TurnUsage, UndoneWork } from '../contract/chat.js';

/** An agent profile as a turn uses it (kept in the log, so editing the file never changes a turn in flight). */
export interface ProfileSnapshot {
  name: string;
  /** `provider:model`. */
  model: string;
  /** The tools offered, resolved when the node started. */
  tools: string[];
  /** The system prompt. */
  prompt: string;
}

/** A tool call as a model asked for it. */
export interface RecordedToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  argumentsError?: string;
  rawArguments?: string;
  /** The provider's opaque token for the call (Gemini's thought signature), sent back with it. */
  signature?: string;
}

/** A model call's answer, exactly as the provider gave it (replayed instead of calling again). */
export interface RecordedResponse {
  content: string;
  toolCalls: RecordedToolCall[];
  stopReason: 'end' | 'tool_calls' | 'max_tokens' | 'other';
  usage: { inputTokens: number; outputTokens: number };
  costUsd: number | null;
  latencyMs: number;
  attempts: number;
}

/** A memory note given to the model before a turn (engine/chat/memory-inject.ts). */
export interface InjectedMemory {
  /** The note, relative to the vault (`memory/2026-01-02-likes-tea.md`). */
  path: string;
  /** What the model was given of it. */
  text: string;
}

export type ChatEvent =
  | { type: 'session.created'; agent: string; title: string; by: string }
  | {
      type: 'turn.started';
      turn: number;
      /** The user's message. */
      text: string;
      /** The root agent as this turn uses it. */
      agent: ProfileSnapshot;
      /** Model calls the whole tree may make. */
      budget: number;
      by: string;
    }
  /** The operator allowed more model calls for a turn the budget stopped. */
  | { type: 'budget.granted'; turn: number; extra: number; by: string }
  | { type: 'model.started'; turn: number; node: string; seq: number }
  | { type: 'model.finished'; turn: number; node: string; seq: number; response: RecordedResponse }
  | { type: 'model.failed'; turn: number; node: string; seq: number; error: EventError }
  /** The intent: recorded before the tool runs. */
  | { type: 'tool.started'; turn: number; node: string; seq: number; index: number; name: string; arguments: Record<string, unknown>; idempotent: boolean }
  | { type: 'tool.finished'; turn: number; node: string; seq: number; index: number; result: string; error?: EventError; meta?: Record<string, unknown> }
  | { type: 'delegation.started'; turn: number; node: string; parent: string; agent: ProfileSnapshot; task: string }
  | { type: 'delegation.finished'; turn: number; node: string; text: string; error?: EventError }
  | { type: 'turn.finished'; turn: number; text: string; stop: ChatStop; usage: TurnUsage; error?: EventError; undone?: UndoneWork[] }
  /**
   * The memories given to the model before this turn (none found: `[]`), recorded before its first model call so a
   * replay gives the same block; `error` when the search failed and the turn went on without them.
   */
  | { type: 'memory.recalled'; turn: number; memories: InjectedMemory[]; error?: EventError }
  /**
   * Earlier turns up to `through` folded into the running summary `text` by one model call (its tokens in `usage`;
   * not taken from the turn's budget), recorded so a replay never calls the model for it again.
   */
  | { type: 'memory.summarized'; turn: number; through: number; text: string; usage: { inputTokens: number; outputTokens: number } };

export type ChatEventType = ChatEvent['type'];
