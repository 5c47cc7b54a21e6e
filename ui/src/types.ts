/**
 * The shapes of the HTTP API and the websocket: contract/, which the server uses too (types
 * only, so nothing of the server enters the bundle), and the few the app keeps for itself.
 */
import type { ChatEventFrame as ChatEventFrameOf, ChatFrame as ChatFrameOf, EventFrame as EventFrameOf, RunState, ServerFrame as ServerFrameOf, StreamFrame as StreamFrameOf, TriggerKind, WireEvent } from '../../contract/index.js';
import type { ChatState, ToolCalling } from '../../contract/index.js';

export type * from '../../contract/index.js';
export type {
  DataStepFile as DataFile, FiringOutcome as TriggerOutcome, EdgeDef as HordeEdge, HordeTrigger as Trigger, RecoverySummary as Recovery,
  StepViewState as StepState, TableInfo as DataTableInfo, WireEvent as RunEvent,
} from '../../contract/index.js';

export const RUN_STATES: readonly RunState[] = ['queued', 'running', 'awaiting_input', 'succeeded', 'failed', 'cancelled'];
export const FINISHED_STATES: readonly RunState[] = ['succeeded', 'failed', 'cancelled'];
export const TOOL_CALLING: readonly ToolCalling[] = ['auto', 'native', 'text'];
export const CHAT_STATES: readonly ChatState[] = ['idle', 'running', 'exhausted'];

/** A session's event, as the websocket carries it (the app reads `type`, `turn` and `node`). */
export interface ChatEvent { type: string; turn?: number; node?: string; [key: string]: unknown }

// The websocket frames, with the events as the app reads them.
export type EventFrame = EventFrameOf<WireEvent>;
export type ChatEventFrame = ChatEventFrameOf<ChatEvent>;
export type ChatFrame = ChatFrameOf<ChatEvent>;
export type ServerFrame = ServerFrameOf<WireEvent, ChatEvent>;
export type StreamFrame = StreamFrameOf<WireEvent>;

// Bundles (`POST /api/bundles`), checked against the server's shapes by test/unit/ui.contract.test.ts.

export interface BundleFile { path: string; bytes: number; sha256: string }

export interface BundleManifest {
  format: 1;
  hordeId: string;
  files: BundleFile[];
  tools: string[];
  mcpServers: string[];
  commands: string[];
}

/** `reaches`: what a `send` or `mcp_call` step reaches (its adapter and recipient, its tool), as written. */
export interface BundleStep { name: string; kind: string; tools: string[]; command?: string; model?: string; reaches?: string }

export interface BundleTrigger { name: string; kind: TriggerKind; schedule?: string; path?: string }

export interface BundleWarning { code: string; file: string; key?: string; message: string }

/** A bundle checked and staged by `POST /api/bundles`: nothing is installed yet. */
export interface BundleReview {
  reviewId: string;
  expiresAt: number;
  manifest: BundleManifest;
  horde: {
    id: string;
    displayName: string;
    description: string;
    pipeline: string[];
    /** false: its verify and apply steps run without asking (`confirm_commands = false`). Sent by the server beyond docs/api.md. */
    confirmCommands?: boolean;
    steps: BundleStep[];
    triggers: BundleTrigger[];
  };
  /** Every command its steps will ask to run. */
  commands: string[];
  tools: string[];
  /** What it wants; MCP servers are never installed by a bundle. */
  mcpServers: string[];
  warnings: BundleWarning[];
  /** The id is already taken. */
  existing: { hordeId: string; origin: 'builtin' | 'user' | 'imported' } | null;
}

/** What `POST /api/bundles/:reviewId/install` takes. */
export interface BundleInstall { id?: string; replace?: boolean }
