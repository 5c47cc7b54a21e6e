/** The shapes of the HTTP API and the websocket, as docs/api.md states them. */

export type RunState = 'queued' | 'running' | 'awaiting_input' | 'succeeded' | 'failed' | 'cancelled';
export const RUN_STATES: readonly RunState[] = ['queued', 'running', 'awaiting_input', 'succeeded', 'failed', 'cancelled'];
export const FINISHED_STATES: readonly RunState[] = ['succeeded', 'failed', 'cancelled'];

export interface ApiErrorBody { error: { code: string; message: string; [key: string]: unknown } }

export interface Problem {
  severity: 'error' | 'warning';
  code: string;
  file: string;
  key?: string;
  line?: number;
  message: string;
  /** On a KW_ERR_TOO_MANY_PROBLEMS entry: how many problems it stands for (the list is capped). */
  omitted?: { errors: number; warnings: number };
}

export type InputType = 'text' | 'textarea' | 'url' | 'choice' | 'path' | 'file' | 'folder';

export interface InputField {
  id: string;
  type: InputType;
  label: string;
  required: boolean;
  placeholder?: string;
  options?: string[];
  default?: string;
}

/** GET /api/hordes/:id/readiness (engine/readiness.ts). */
export interface ModelReadiness {
  model: string | null;
  steps: string[];
  status: 'ok' | 'not_configured' | 'unreachable' | 'model_missing';
  message: string;
}

export interface HordeReadiness {
  hordeId: string;
  ready: boolean;
  models: ModelReadiness[];
  configFile: string;
}

export interface Trigger {
  name: string;
  kind: 'cron' | 'watch' | 'webhook';
  enabled: boolean;
  schedule?: string;
  timezone?: string;
  path?: string;
}

export type HordeOrigin = 'builtin' | 'user' | 'imported';

export interface HordeSummary {
  id: string;
  displayName: string;
  description: string;
  origin: HordeOrigin;
  valid: boolean;
  problems: Problem[];
  inputs: InputField[];
  triggers: Trigger[];
  stepCount: number;
  /** A horde whose id another one (a built-in) already holds: the one that runs under that id. */
  idTakenBy?: { origin: string; dir: string };
}

export interface HordeStep {
  name: string;
  kind: string;
  displayName: string;
  description?: string;
  output: string;
  /** 'thread' | 'process' per docs/api.md; the server may name others (e.g. 'in_process'). */
  isolation: string;
  verifyCommand?: string;
  tools: string[];
  model?: string;
}

export type EdgeWhen = 'pass' | 'fail' | 'always';

export interface HordeEdge {
  from: string;
  to: string;
  when: EdgeWhen;
  maxLoops?: number;
  back: boolean;
  implicit: boolean;
}

export interface HordeDetail extends HordeSummary {
  pipeline: string[];
  steps: HordeStep[];
  edges: HordeEdge[];
  display: Record<string, string>;
  body: string;
  confirmCommands: boolean;
  /** Some step runs a command (verify, apply): only then is `confirmCommands` worth showing. */
  runsCommands: boolean;
}

export type TriggerKind = 'cron' | 'watch' | 'webhook';
export type TriggerOutcome = 'started' | 'skipped' | 'queued' | 'missed' | 'overflow' | 'failed';

/** One time a trigger fired (or was held back). */
export interface TriggerFiring {
  /** When it was handled, ms. */
  at: number;
  /** Cron: the scheduled instant; webhook: the delivery id; watch: path + content hash. */
  key: string;
  outcome: TriggerOutcome;
  runId: string | null;
  detail: string | null;
}

/** A trigger as `GET /api/triggers` shows it, with the operator's switch. */
export interface TriggerView {
  hordeId: string;
  name: string;
  kind: TriggerKind;
  /** The operator's switch (built-in and imported hordes arrive off). */
  enabled: boolean;
  overlap: 'skip' | 'queue_one' | 'parallel';
  schedule?: string;
  timezone?: string;
  catchUp?: 'skip' | 'once' | 'all';
  path?: string;
  globs?: string[];
  debounceMs?: number;
  /** Webhook: `/hooks/<horde>/<name>`. */
  hookPath?: string;
  /** Webhook: a secret is configured. */
  signed?: boolean;
  /** Cron, enabled: the next scheduled time (ms). */
  nextFireAt: number | null;
  lastFiring: TriggerFiring | null;
  /** Runs of this trigger not finished. */
  active: number;
  /** Why it cannot fire (bad path, missing secret, …). */
  error?: string;
}

export interface BundleFile { path: string; bytes: number; sha256: string }

export interface BundleManifest {
  format: 1;
  hordeId: string;
  files: BundleFile[];
  tools: string[];
  mcpServers: string[];
  commands: string[];
}

export interface BundleStep { name: string; kind: string; tools: string[]; command?: string; model?: string }

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

export interface RunRow {
  id: string;
  hordeId: string;
  hordeHash: string;
  state: RunState;
  provenance: string;
  input: Record<string, string>;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  errorCode: string | null;
  error: string | null;
  lastSeq: number;
}

export interface RunPage { runs: RunRow[]; nextCursor: string | null }

export type StepState = 'pending' | 'running' | 'passed' | 'failed' | 'interrupted' | 'cancelled' | 'awaiting_approval';

export interface StepView {
  name: string;
  kind: string;
  state: StepState;
  attempt: number;
  outcome: 'pass' | 'fail' | null;
  durationMs: number | null;
  /** Relative to the run's workdir. */
  artifact: string | null;
  summary: string | null;
  error: { code: string; message: string | null } | null;
}

export interface AttemptRow {
  step: string;
  attempt: number;
  state: 'running' | 'passed' | 'failed' | 'interrupted' | 'cancelled';
  startedAt: number;
  finishedAt: number | null;
  durationMs: number | null;
  artifact: string | null;
  summary: string | null;
  errorCode: string | null;
  error: string | null;
}

export interface ApprovalCommand {
  argv: string[];
  cwd: string;
  /** Names only, never values. */
  env: string[];
}

export interface ApprovalRow {
  step: string;
  seq: number;
  reason: 'confirm_command' | 'outcome_unknown' | 'review';
  command: ApprovalCommand;
  /** For a review: the sha256 of the artifact shown. */
  hash: string;
  state: 'pending' | 'granted' | 'denied' | 'void';
  requestedAt: number;
  decidedAt: number | null;
  decidedBy: string | null;
  denyReason: string | null;
  /** A review's file, workdir-relative; null for a command. */
  artifact: string | null;
}

/** `GET /api/runs/:id/review`: the artifact a review step waits on (engine/review.ts ReviewView). */
export interface ReviewView {
  runId: string;
  step: string;
  /** Workdir-relative. */
  path: string;
  /** sha256 of the content shown when the run parked: what an approval or an edit binds to. */
  hash: string;
  /** The file now (UTF-8); null when it is gone or too large to show. */
  content: string | null;
  bytes: number | null;
  /** The file changed since the run parked. */
  changed: boolean;
}

/** `POST /api/runs/:id/review`: what the edit-and-approve did. */
export interface ReviewEditResult {
  step: string;
  path: string;
  before: string;
  after: string;
  /** False when the content was unchanged: a plain approval. */
  edited: boolean;
}

export interface RunView {
  run: RunRow;
  steps: StepView[];
  attempts: AttemptRow[];
  approvals: ApprovalRow[];
  /** Pending approvals only. */
  pending: ApprovalRow[];
  /** Absolute; step artifacts are relative to it. */
  workdir: string;
  /** Its limits, what it spent, and whether it is parked for its budget. */
  budget: BudgetView;
  /** The run's main artifact, once there is one. */
  delivery: Delivery | null;
}

/** The kinds of limit, as `[budget]` spells them. */
export type BudgetKey = 'model_calls' | 'tokens' | 'cost_usd' | 'tool_calls' | 'wall_secs';
export type BudgetLimits = Partial<Record<BudgetKey, number>>;
export type BudgetSpent = Record<BudgetKey, number> & { unpriced: number };
export interface BudgetView {
  limits: BudgetLimits;
  spent: BudgetSpent;
  parked: { over: BudgetKey[]; spent: BudgetSpent; at: number } | null;
}

/** A run's main artifact: the horde's `delivery_root_rel` when written, else the last passed step's artifact. */
export interface Delivery {
  /** Relative to the run's workdir. */
  artifact: string;
  /** Absolute. */
  path: string;
  step: string | null;
  /** The horde's `delivery_title`. */
  title: string | null;
}

export interface RunEvent { type: string; [key: string]: unknown }

export interface StoredEvent { gseq: number; runId: string; seq: number; at: number; event: RunEvent }

export interface Recovery {
  resumed: string[];
  retried: { runId: string; step: string; attempt: number }[];
  /** How many runs wait for the operator. */
  parked: number;
  outcomeUnknown: { runId: string; step: string }[];
  failed: { runId: string; message: string }[];
}

export interface Health {
  ok: boolean;
  version: string;
  auth: 'token';
  startedAt: number | string;
  /** Null when nothing was recovered at the last start. */
  recovery: Recovery | null;
}

export type ToolCalling = 'auto' | 'native' | 'text';
export const TOOL_CALLING: readonly ToolCalling[] = ['auto', 'native', 'text'];

export interface Setup {
  configFile: string;
  model: { default: string | null; toolCalling: ToolCalling };
  providers: {
    ollama: { host: string | null };
    anthropic: KeyedSetup;
    gemini: KeyedSetup;
    /** An OpenAI-compatible server. */
    openai: KeyedSetup;
  };
  tools: { root: string | null };
  /** `[vault.semantic]`: semantic search over the vault's notes. */
  vault: { semantic: { enabled: boolean; model: string } };
}

/** PUT /api/setup's answer: the new Setup, how config.toml was written, and the default model's check when the save changed the model or a provider. */
export interface SetupSaved extends Setup {
  written: { comments: 'kept' | 'dropped'; message: string };
  check: { status: 'ok' | 'unreachable' | 'model_missing' | 'not_configured'; message: string } | null;
}

/** A hosted provider's key (only a hint of it) and base URL. */
export interface KeyedSetup {
  apiKeySet: boolean;
  apiKeyHint: string | null;
  baseUrl: string | null;
}

/** Every key optional; null removes a setting. */
export interface SetupPatch {
  model?: { default?: string | null; toolCalling?: ToolCalling };
  providers?: {
    ollama?: { host?: string | null };
    anthropic?: { apiKey?: string | null; baseUrl?: string | null };
    gemini?: { apiKey?: string | null; baseUrl?: string | null };
    openai?: { apiKey?: string | null; baseUrl?: string | null };
  };
  tools?: { root?: string | null };
  vault?: { semantic?: { enabled?: boolean; model?: string | null } };
}

/** One tool call a model asked for, as it appears in a prompt's assistant message. */
export interface ToolCall {
  id: string;
  name: string;
  /** `{}` when the model's arguments did not parse (see `argumentsError`). */
  arguments: Record<string, unknown>;
  argumentsError?: string;
  /** Exactly as the model wrote them, when they arrived as text. */
  rawArguments?: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; isError?: boolean };

/** One model provider call. */
export interface TraceSummary {
  id: number;
  runId: string;
  step: string;
  attempt: number;
  /** 1, 2, … within the step attempt. */
  seq: number;
  /** 'ollama' | 'anthropic' | 'openai' | 'gemini' per docs/api.md; typed as the server stores it. */
  provider: string;
  model: string;
  /** How tools were offered: 'native' | 'text'. */
  mode: string;
  inputTokens: number;
  outputTokens: number;
  /** US dollars; 0 for a local model, null when the price is unknown. */
  costUsd: number | null;
  latencyMs: number;
  /** HTTP attempts, 1 + retries. */
  attempts: number;
  toolCalls: number;
  error: { code: string; message: string } | null;
  startedAt: number;
  /** A chat model call: its session (then runId is the session, step the node, attempt the turn). */
  sessionId: string | null;
  /** The trace of the model call that delegated to this agent. */
  parentId: number | null;
  /** The agent profile that made a chat call. */
  agent: string | null;
  /** Not a real call: its answer was replayed from an earlier run's trace (a re-run with replayed model outputs). */
  replayed: boolean;
}

export interface TracePage { traces: TraceSummary[]; nextBefore: number | null }

/** A tool call the model made in this call, and what came of it. */
export interface TracedToolCall {
  id: string;
  name: string;
  arguments: Record<string, unknown>;
  rawArguments?: string;
  /** What the model was given back: the result, or an error it can correct. */
  result: string;
  error?: { code: string; message: string };
  durationMs: number;
  meta?: Record<string, unknown>;
}

export interface TraceDetail extends TraceSummary {
  /** The prompt as sent. */
  messages: ChatMessage[];
  /** Names of the tools offered. */
  tools: string[];
  completion: string;
  calls: TracedToolCall[];
  /** The earlier run's trace whose answer this call replayed. */
  replayedFrom?: number;
}

// The websocket frames.

export interface HelloFrame { type: 'hello'; version: string; gseq: number }
export interface EventFrame { type: 'event'; gseq: number; runId: string; seq: number; at: number; event: RunEvent; state: RunState | null }
export interface SyncedFrame { type: 'synced'; runId?: string; state?: RunState; gseq: number }
export interface ProgressFrame { type: 'progress'; runId: string; step: string; attempt: number; message: string }
/** A model call of the run was recorded (live only): fetch it from `/api/traces`. */
export interface TraceFrame { type: 'trace'; runId: string; step: string; attempt: number; traceId: number }
export interface ResultFrame { type: 'result'; id: string; ok: true; step: string }
export interface ErrorFrame { type: 'error'; id?: string; error: { code: string; message: string } }

export type ServerFrame = HelloFrame | EventFrame | SyncedFrame | ProgressFrame | TraceFrame | ResultFrame | ErrorFrame | ChatFrame;
/** What a subscriber hears. */
export type StreamFrame = EventFrame | SyncedFrame | ProgressFrame | TraceFrame;

export type ClientFrame =
  | { type: 'subscribe'; after?: number; runId?: string }
  | { type: 'unsubscribe' }
  | { type: 'approve'; id: string; runId: string; step?: string }
  | { type: 'deny'; id: string; runId: string; step?: string; reason: string }
  | { type: 'chat-follow'; sessionId: string; after: number }
  | { type: 'chat-unfollow' };

// The JSON files the data steps write beside their Markdown artifact (agents/data-types.ts).

/** A value as the data tool returns it: numbers, `YYYY-MM-DD` dates and timestamps as text, booleans, null. */
export type DataValue = string | number | boolean | null;

export interface DataColumn { name: string; type: string }

export interface DataTableInfo {
  name: string;
  source: string;
  sheet?: string;
  rowCount: number;
  columnCount: number;
}

export interface ColumnProfile {
  name: string;
  type: string;
  nulls: number;
  distinct: number;
  min: DataValue;
  max: DataValue;
  mean: number | null;
  top: Array<{ value: DataValue; count: number }>;
}

export interface TableProfileFile {
  version: 1;
  kind: 'table_profile';
  tables: Array<{ table: DataTableInfo; columns: ColumnProfile[]; notes: string[] }>;
  skipped: Array<{ source: string; error: string }>;
}

export interface SqlBatchQuery {
  index: number;
  question: string;
  sql: string;
  columns: DataColumn[];
  rows: DataValue[][];
  rowCount: number;
  truncated: boolean;
}

export interface SqlBatchFile {
  version: 1;
  kind: 'sql_batch';
  queries: SqlBatchQuery[];
}

export type DataFile = SqlBatchFile | TableProfileFile;

/** An agent profile in effect (`GET /api/agents`, docs/agents.md). */
export interface AgentProfile {
  name: string;
  description: string;
  /** `provider:model`; absent: the configured default. */
  model?: string;
  /** Absent: every tool; []: none. */
  tools?: string[];
  maxIterations?: number;
  prompt: string;
  origin: 'builtin' | 'user';
  file: string;
}

/** A problem of an agent profile file (every one is an error). */
export interface TeamProblem {
  file: string;
  key?: string;
  line?: number;
  code: string;
  message: string;
}

export interface AgentList {
  agents: AgentProfile[];
  problems: TeamProblem[];
}

/** `GET /api/agents/:name`: the profile's file as it is on disk. */
export interface AgentSource {
  name: string;
  origin: 'builtin' | 'user';
  file: string;
  text: string;
  /** In effect from this file (its last good version when it has problems); null: none. */
  profile: AgentProfile | null;
  problems: TeamProblem[];
  /** A built-in of this name exists: removing the user's file resets to it. */
  hasBuiltin: boolean;
}

// Chat sessions with the agent team (`/api/chat`, docs/api.md).

export type ChatState = 'idle' | 'running' | 'exhausted';
export const CHAT_STATES: readonly ChatState[] = ['idle', 'running', 'exhausted'];
/** How a turn ended. */
export type ChatStop = 'done' | 'budget_exhausted' | 'error';

export interface CodedError { code: string; message: string }

export interface TurnUsage {
  calls: number;
  toolCalls: number;
  inputTokens: number;
  outputTokens: number;
  /** null when any call's price is unknown. */
  costUsd: number | null;
}

/** Work a turn stopped before finishing (its budget ran out). */
export interface UndoneWork { node: string; agent: string; task: string }

export interface ChatSessionSummary {
  id: string;
  agent: string;
  title: string;
  state: ChatState;
  turns: number;
  lastStop: ChatStop | null;
  budget: { limit: number; used: number };
  usage: { calls: number; inputTokens: number; outputTokens: number };
  createdAt: number;
  updatedAt: number;
  /** Follow the session on the websocket after this sequence. */
  lastSeq: number;
}

/** What the agents did in a turn, in the order it started. Node `r` is the root agent, `r/2.0` one it delegated to. */
export type TurnItem =
  | {
      kind: 'tool';
      node: string;
      agent: string;
      name: string;
      arguments: Record<string, unknown>;
      status: 'running' | 'done' | 'failed';
      /** Cut at 2 000 characters (the trace keeps it whole). */
      result?: string;
      error?: CodedError;
      at: number;
    }
  | {
      kind: 'delegation';
      node: string;
      parent: string;
      agent: string;
      task: string;
      status: 'running' | 'done' | 'failed';
      /** The sub-agent's answer. */
      text?: string;
      error?: CodedError;
      at: number;
    };

export interface TurnView {
  turn: number;
  /** The user's message. */
  text: string;
  at: number;
  agent: string;
  budget: { limit: number; used: number };
  items: TurnItem[];
  /** The memories given to the model before the turn (or why none could be found). */
  memories?: { notes: Array<{ path: string; text: string }>; error?: CodedError };
  /** Earlier turns up to `through` were folded into this summary before the turn. */
  summary?: { through: number; text: string };
  /** Set once the turn has ended (removed again when more budget is granted). */
  answer?: { text: string; stop: ChatStop; usage: TurnUsage; error?: CodedError; undone?: UndoneWork[]; at: number };
}

export interface ChatSessionView extends ChatSessionSummary { transcript: TurnView[] }

/** A session's event, as the websocket carries it (the app reads `type`, `turn` and `node`). */
export interface ChatEvent { type: string; turn?: number; node?: string; [key: string]: unknown }

export interface ChatEventFrame { type: 'chat-event'; sessionId: string; seq: number; at: number; event: ChatEvent; state: ChatState | null }
export interface ChatSyncedFrame { type: 'chat-synced'; sessionId: string; seq: number; state: ChatState }
/** A piece of a model's answer as it streams (live only, never replayed). */
export interface ChatTokenFrame { type: 'chat-token'; sessionId: string; turn: number; node: string; agent: string; text: string }
export type ChatFrame = ChatEventFrame | ChatSyncedFrame | ChatTokenFrame;

/** A note of the vault (`GET /api/vault/notes`). */
export interface NoteInfo {
  path: string;
  title: string;
  size_bytes: number;
  modified_at: number;
  preview: string;
}

export type WriteOp = 'create' | 'append' | 'revert';

/** One audited write to a note (`GET /api/writes`). */
export interface NoteWrite {
  writeId: number;
  at: number;
  op: WriteOp;
  path: string;
  bytesBefore: number;
  bytesAfter: number;
  content: string;
  sha256Before: string | null;
  sha256After: string | null;
  sessionId: string | null;
  agent: string | null;
  traceId: number | null;
  by: string;
  state: 'pending' | 'done' | 'failed';
  error: { code: string; message: string } | null;
  reverts: number | null;
  revertedBy: number | null;
}

export interface NoteView { note: NoteInfo; content: string; writes: NoteWrite[] }

export interface SearchHit {
  path: string;
  title: string;
  snippet: string;
  score: number;
  found: Array<'keyword' | 'semantic'>;
  heading?: string;
}

export interface SearchAnswer {
  query: string;
  mode: 'keyword' | 'hybrid';
  hits: SearchHit[];
  note?: string;
}

/** The Rookery (`/api/rookery`): a horde being built; the same snake_case shape as the folder's keys. */
export type RookeryStage = 'interview' | 'proposed' | 'born';

export interface DraftInput {
  id: string;
  type?: string;
  label?: string;
  required?: boolean;
  placeholder?: string;
  options?: string[];
  default?: string;
}

export interface DraftStep {
  name: string;
  kind: string;
  display_name: string;
  description: string;
  prompt_body: string;
  output: string;
  context_paths: string[];
  tools: string[];
  model?: string;
  inputs: DraftInput[];
  verify_command?: string;
  verify_cwd?: string;
  apply_mode?: 'dry-run' | 'execute';
  timeout_secs?: number;
  isolation?: 'in_process' | 'process';
}

export interface DraftEdge { from: string; to: string; when?: EdgeWhen; max_loops?: number }

export interface HordeDraft {
  id: string;
  display_name: string;
  description: string;
  steps: DraftStep[];
  edges: DraftEdge[];
  triggers: Record<string, unknown>[];
  workdir?: string;
  delivery_root_rel?: string;
  confirm_commands?: boolean;
  display?: Record<string, string>;
}

/** A problem of a draft, pointed at its step (when in one) and key. */
export interface DraftProblem extends Problem { step?: string }

export interface BirthResult { horde_id: string; horde_root: string; validate_ok: boolean; problems: DraftProblem[] }

/** `GET /api/rookery/drafts/:id`. */
export interface DraftView {
  id: string;
  session_id: string | null;
  draft: HordeDraft;
  stage: RookeryStage;
  ok: boolean;
  problems: DraftProblem[];
  born: BirthResult | null;
  born_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A line of `GET /api/rookery/drafts`. */
export interface DraftSummary {
  id: string;
  session_id: string | null;
  horde_id: string;
  display_name: string;
  steps: number;
  stage: RookeryStage;
  born_horde_id: string | null;
  updated_at: number;
}

/** `GET /api/rookery/kinds`: a step kind a draft may use. */
export interface StepKindSummary { kind: string; model: boolean; summary: string }

/** `GET /api/adapters`: one inbound channel's status (docs/adapters.md); secrets in `settings` are masked by the server. */
export interface AdapterStatus {
  name: string;
  type: 'webhook' | 'slack' | 'discord' | 'email' | 'calendar';
  enabled: boolean;
  state: 'running' | 'stopped' | 'error';
  lastError: string | null;
  lastErrorAt: number | null;
  lastActivityAt: number | null;
  errorCount: number;
  agent: string | null;
  settings: Record<string, unknown>;
}

/** `GET /api/nodes`: one node sharing the run store (engine/nodes-view.ts; docs/api.md). Times are ms since the epoch, by the database's clock. */
export interface NodeView {
  id: string;
  /** Host and data folder, for people. */
  name: string;
  /** Where its server answers, once it listens. */
  url: string | null;
  pid: number;
  startedAt: number;
  heartbeatAt: number;
  /** A clean stop; a node that died keeps null and its heartbeat ages. */
  stoppedAt: number | null;
  /** As of its last heartbeat (the answering node's: as of now; a stopped node's: 0). */
  stepsRunning: number;
  /** Runs whose lease it holds. */
  runsHeld: number;
  heartbeatAgeMs: number;
  /** The node that answered. */
  self: boolean;
  /** A heartbeat within its lease, and no clean stop. */
  alive: boolean;
}

/** `GET /api/nodes`: a run passed from one node to another (released: it was parked or its node stopped; expired: its node went silent). */
export interface HandoverRecord {
  runId: string;
  fromNode: string;
  toNode: string;
  epoch: number;
  at: number;
  reason: 'expired' | 'released';
}

/** `GET /api/nodes`: with SQLite, one node (this process) and no hand-overs. */
export interface NodesView {
  store: 'sqlite' | 'postgres';
  nodes: NodeView[];
  /** The latest 100, newest first. */
  handovers: HandoverRecord[];
  /** How the answering node hears other nodes: at once by notification, or at its next poll; null: one node. */
  wakeUps: 'notify' | 'polling' | null;
}

/** Where a plugin failed (docs/plugins.md): found, its manifest checked, its grant, its module loaded, its process started, a call. */
export type PluginPhase = 'discover' | 'validate' | 'permission' | 'load' | 'start' | 'call';

/** What a plugin may do (its manifest's `[permissions]`), granted as a whole. */
export interface PluginPermissions { fsRead: string[]; fsWrite: string[]; net: string[]; env: string[]; exec: boolean }

/** `GET /api/plugins`: one plugin found under `<data>/plugins/` (docs/plugins.md). */
export interface PluginStatus {
  name: string;
  /** Null when the manifest could not be read. */
  version: string | null;
  description: string | null;
  source: 'package' | 'folder';
  /** Its folder. */
  root: string;
  state: 'pending' | 'granted' | 'invalid';
  permissions: PluginPermissions | null;
  /** The permissions in plain words, one per line; empty when invalid. */
  permissionsText: string[];
  permissionsHash: string | null;
  /** As agents see them: `<plugin>__<tool>`. */
  tools: { name: string; description: string }[];
  adapters: { name: string; description: string }[];
  warnings: string[];
  /** Each with its error code (`KW_ERR_PLUGIN_MANIFEST`…). */
  failures: { phase: PluginPhase; code: string; message: string; at: number }[];
  grantedBy: string | null;
  grantedAt: number | null;
  /** Its process's counters, once started. */
  process: { running: boolean; restarts: number; failures: number } | null;
  /** How plugins are confined on the server's machine: `bwrap` (bubblewrap and Node's permission model) or `node` (Node's permission model only: sockets and signals are open to them); the same for every plugin. */
  confinement: { kind: 'bwrap' | 'node'; detail: string };
}

/** `GET /api/plugins/:name`'s `audit`: one grant or revoke, oldest first. */
export interface PluginAuditEntry { action: 'grant' | 'revoke'; version: string; permissionsHash: string; by: string; at: number }
