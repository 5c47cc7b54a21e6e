/**
 * The websocket's frames (docs/api.md). The run and chat events they carry are typed by the
 * server with its own closed unions (`E`, `C`); a client reads them as `WireEvent`s.
 */
import type { ChatState } from './chat.js';
import type { RunState, WireEvent } from './runs.js';

/** A step's progress line (live only). */
export interface StepProgress { runId: string; step: string; attempt: number; message: string }
/** A model call of a step was recorded (live only): fetch it from `/api/traces`. */
export interface TraceRecorded { runId: string; step: string; attempt: number; traceId: number }
/** Long work the server does on an operator's request, which the app shows as a bar. */
export type WorkOp = 'vault-reindex' | 'plugins-rescan' | 'bundle-import';
/**
 * How far that work got (live only, never replayed): a report of its `Progress` (throttled),
 * then one with `finished: true` (also when it failed: then with `error`, the failure's code).
 */
export interface WorkProgress {
  op: WorkOp;
  /** As the operation names it: `notes`, `embedded`, `plugins`. */
  phase: string;
  done: number;
  /** `null` while unknown; a finished frame that succeeded has it, equal to `done`. */
  total: number | null;
  item?: string;
  finished: boolean;
  /** The code of the failure that ended it (only with `finished: true`). */
  error?: string;
}
/** A piece of a model's answer as it streams (live only, never replayed). */
export interface ChatToken { sessionId: string; turn: number; node: string; agent: string; text: string }

export interface HelloFrame { type: 'hello'; version: string; gseq: number }
export interface EventFrame<E = WireEvent> { type: 'event'; gseq: number; runId: string; seq: number; at: number; event: E; state: RunState | null }
export interface SyncedFrame { type: 'synced'; runId?: string; state?: RunState; gseq: number }
export type ProgressFrame = { type: 'progress' } & StepProgress;
export type TraceFrame = { type: 'trace' } & TraceRecorded;
export interface ChatEventFrame<C = WireEvent> { type: 'chat-event'; sessionId: string; seq: number; at: number; event: C; state: ChatState | null }
export interface ChatSyncedFrame { type: 'chat-synced'; sessionId: string; seq: number; state: ChatState }
export type ChatTokenFrame = { type: 'chat-token' } & ChatToken;
export type WorkFrame = { type: 'work' } & WorkProgress;
/** What a `changed` frame says changed: the team's profiles, the adapters' statuses, the plugins. */
export type ChangedTopic = 'agents' | 'adapters' | 'plugins';
/** Something a screen shows changed on the server (live only, to clients that `watch` it): read it again. */
export interface ChangedFrame { type: 'changed'; topic: ChangedTopic }
/** The answer to an `approve` or `deny` frame (`id` as the client sent it). */
export interface ResultFrame { type: 'result'; id?: string | number; ok: true; step: string }
export interface ErrorFrame { type: 'error'; id?: string | number; error: { code: string; message: string } }

export type ChatFrame<C = WireEvent> = ChatEventFrame<C> | ChatSyncedFrame | ChatTokenFrame;
/** What the server sends. */
export type ServerFrame<E = WireEvent, C = WireEvent> = HelloFrame | EventFrame<E> | SyncedFrame | ProgressFrame | TraceFrame | ChatFrame<C> | ChangedFrame | WorkFrame | ResultFrame | ErrorFrame;
/** What a run subscriber hears. */
export type StreamFrame<E = WireEvent> = EventFrame<E> | SyncedFrame | ProgressFrame | TraceFrame;

/** What a client sends. */
export type ClientFrame =
  | { type: 'subscribe'; after?: number; runId?: string }
  | { type: 'unsubscribe' }
  | { type: 'approve'; id: string; runId: string; step?: string }
  | { type: 'deny'; id: string; runId: string; step?: string; reason: string }
  | { type: 'chat-follow'; sessionId: string; after: number }
  | { type: 'chat-unfollow' }
  /** The topics this client hears `changed` frames of, from now on (replacing what it watched; `[]`: none). */
  | { type: 'watch'; topics: ChangedTopic[] };
