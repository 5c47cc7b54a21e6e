/**
 * The one message protocol between the engine and a running step, the same for a
 * Piscina worker thread and for an isolated child process. Everything here is plain
 * data (structured-clone and JSON safe); errors travel as PlainError.
 */
import type { HordeDef, NoteMode, PlainError, SendSpec, StepDef } from '../core/index.js';
import type { ModelCallTrace, ProviderSettings, ReplayTable, ToolCallingMode, ToolCallingSetting, ToolOutput, ToolSpec } from '../agents/index.js';
import type { ProjectFolder } from './project.js';
import type { SpawnerAddress } from './spawner-wire.js';

/** The exact command a step will run, as shown to the operator and hashed for approval. */
export interface CommandSpec {
  argv: string[];
  cwd: string;
  /** Names (never values) of the environment variables the command receives. */
  env: string[];
}

/** Everything a step needs, fixed before the step starts (identity before await). */
export interface StepTask {
  runId: string;
  step: StepDef;
  attempt: number;
  /** The horde as snapshotted at run start (never re-read from disk). */
  horde: HordeDef;
  /** Absolute: `<data>/runs/<runId>`. */
  runDir: string;
  /** Absolute: the run's workdir, `<runDir>/<horde.workdir>`. */
  workdir: string;
  /** Absolute: where this attempt keeps its copy of the artifact, `<runDir>/attempts/<step>/<attempt>`. */
  attemptDir: string;
  /**
   * A step of this run has passed since the engine loaded it, so `runDir` and `workdir`
   * exist: the step does not make them again (steps/workdir.ts). Absent for a run's first
   * steps, and after a restart.
   */
  foldersMade?: boolean;
  /** The run's form answers. */
  input: Record<string, string>;
  /** When the run was created, ms (the `{{date}}` of an `mcp_call` step's fields). */
  createdAt?: number;
  /** The run's project folder (steps/project.ts), when it has one: verify and apply run there, 1.x `fs_tool` is confined to it. */
  project?: ProjectFolder;
  /** Workdir-relative output of the step that led here (for `@artifact@`), if any. */
  previousOutput?: string;
  /** Workdir-relative outputs of every step of the horde, for `@step:<name>@`. */
  stepOutputs: Record<string, string>;
  /** For verify/apply: the command resolved by the engine; when approval was needed, the approved one. */
  command?: CommandSpec & { hash: string };
  /** For a review step: the artifact the operator approved (by its sha256), and their edit to put in place first, if any. */
  review?: ReviewTask;
  /** For a command step in a pool thread: the engine's spawn helper, which starts the command (absent: the step starts it itself). */
  spawner?: SpawnerAddress;
  /** For a step in an isolated child: the fd of the engine's lifeline in that child (lifeline.ts), handed to its commands. */
  lifeline?: number;
  /** A random token put in the environment of every process the step starts (KOWALSKI_STEP_TOKEN), so leftovers can be found after a crash. */
  token: string;
  /** Limits for this step. */
  limits: StepLimits;
  /** For model steps: the model to use and how (absent: no model configured, the step fails with KW_ERR_NO_MODEL). */
  model?: ModelTask;
  /**
   * Test-only: `ip:port` pairs that web fetches may reach although the address is loopback
   * or private (EngineOptions.testOnlyFetchAllow). Never set outside tests.
   */
  fetchAllow?: string[];
}

/** What a review step checks and does: the approved file, as its hash says; an edit is staged at `staged` (absolute). */
export interface ReviewTask {
  /** Workdir-relative. */
  path: string;
  /** sha256 of the content the operator approved (after their edit, if any). */
  hash: string;
  edit?: { before: string; staged: string };
}

/** What a model step needs to reach its model, fixed by the engine from config.toml and what it learned. */
export interface ModelTask {
  /** `provider:model`: the step's `model`, else the configured default (parsed by the step, so a bad one fails the step naming it). */
  model: string;
  /** Hosts, key, timeouts, retries. Never written to the log. */
  settings: ProviderSettings;
  toolCalling: ToolCallingSetting;
  /** For `auto`: how this model called tools successfully before. */
  learned?: ToolCallingMode;
  /** Most model calls in one step's tool loop. */
  maxIterations: number;
  /** Most failed tool calls the model may correct in one step. */
  maxToolErrors: number;
  /** A re-run with `--replay-models`: the earlier run's answers to this step's model calls, by request (agents/model-replay.ts). */
  replay?: ReplayTable;
}

export interface StepLimits {
  /** Max bytes of stdout/stderr kept per stream (default 64 KiB). */
  outputBytes: number;
  /** Ingest walk: max files, total bytes, depth. */
  ingestFiles: number;
  ingestBytes: number;
  ingestDepth: number;
}

export const DEFAULT_LIMITS: StepLimits = {
  outputBytes: 64 * 1024,
  ingestFiles: 2000,
  ingestBytes: 200 * 1024 * 1024,
  ingestDepth: 12,
};

/**
 * Hordes a pool thread keeps parsed, by key (the oldest goes past this many); a runner
 * remembers the keys of as many horde texts, since a key its threads have let go of
 * saves no parse.
 */
export const HORDES_KEPT = 64;

/** How a step ended. `pass`/`fail` route the edges; an error is a `fail` with `error` set. */
export interface StepResult {
  outcome: 'pass' | 'fail';
  /** Workdir-relative path of the artifact written (normally `step.output`). */
  artifact?: string;
  /** One line for the operator. */
  summary?: string;
  error?: PlainError;
}

/** What a step asks of the engine and waits for: tools live in the engine (one registry, one MCP connection per server). */
export type StepRequest =
  | { op: 'describe-tools'; names: string[] }
  | { op: 'call-tool'; name: string; args: Record<string, unknown> }
  /** An `mcp_call` step's one call: its answer recorded by run, step and attempt (an attempt after a crash gets it back). */
  | { op: 'step-call'; name: string; args: Record<string, unknown> }
  /** An `agent` step: one turn of a team profile, run by the engine's chat (durable, with the profile's tools and delegation). */
  | { op: 'agent-turn'; agent: string; text: string }
  /** A `vault_note` step: write its note through the vault's audited writes, keyed by the run and step (an attempt again finds the write). */
  | { op: 'vault-write'; path: string; content: string; mode: NoteMode }
  /** An input naming a vault note (`vault:<note>`): its text, read through the vault (its path rules apply). */
  | { op: 'vault-read'; path: string }
  /** A `send` step: deliver the text through a configured adapter, keyed by the run and step (an attempt again finds the delivery). */
  | { op: 'adapter-send'; send: SendSpec; text: string };

/** What a `send` step's delivery did. */
export interface SendAnswer {
  /** `skipped`: its adapter filled to nothing (an input left empty), so nothing was sent. */
  status: 'sent' | 'skipped';
  adapter: string;
  to: string;
  /** The service's id of the message (Slack's ts, the mail's Message-ID). */
  messageId?: string;
  /** The message was sent by an earlier attempt (before a crash): not sent again. */
  earlier: boolean;
  bytes: number;
}

/** What a `vault_note` step's write did. */
export interface VaultWriteAnswer {
  path: string;
  writeId: number;
  op: 'create' | 'append';
  bytesBefore: number;
  bytesAfter: number;
}

/** An `mcp_call` step's answer. */
export interface StepCallAnswer {
  output: ToolOutput;
  /** Given back from this earlier attempt's recorded answer (it was interrupted): the tool was not called again. */
  earlierAttempt?: number;
}

/** A vault note as read for a step: its path as the vault writes it, and its text. */
export interface VaultReadAnswer {
  path: string;
  content: string;
}

/** The answer of an `agent` step's turn. */
export interface AgentTurnAnswer {
  /** The chat session the turn ran in (its delegation tree, its traces). */
  sessionId: string;
  turn: number;
  text: string;
  usage: { calls: number; toolCalls: number; inputTokens: number; outputTokens: number; costUsd: number | null };
}

/** What each request resolves to. */
export interface StepRequestResults {
  'describe-tools': ToolSpec[];
  'call-tool': ToolOutput;
  'step-call': StepCallAnswer;
  'agent-turn': AgentTurnAnswer;
  'vault-write': VaultWriteAnswer;
  'vault-read': VaultReadAnswer;
  'adapter-send': SendAnswer;
}

/** Step → engine. */
export type StepMessage =
  | { type: 'request'; id: number; request: StepRequest }
  /** One provider call, recorded by the engine. */
  | { type: 'trace'; trace: ModelCallTrace }
  /** `auto` tool calling found how `model` calls tools; the engine remembers it. */
  | { type: 'learned'; model: string; mode: ToolCallingMode }
  /** A command was started in its own process group; the step waits for `go` before the command runs. */
  | { type: 'spawned'; pgid: number; token: string }
  | { type: 'progress'; message: string }
  | { type: 'done'; result: StepResult };

/** Engine → step. */
export type EngineMessage =
  /** The `spawned` record is committed: the command may run. */
  | { type: 'go' }
  | { type: 'cancel'; reason: string }
  | { type: 'response'; id: number; ok: true; value: unknown }
  | { type: 'response'; id: number; ok: false; error: PlainError };

/** A child process's first message in, and what it sends back, over Node IPC. */
export type ChildInbound = { type: 'task'; task: StepTask; kindModule: string } | EngineMessage;

/** What a step kind receives. */
export interface StepContext {
  task: StepTask;
  /** Aborted on cancel or timeout: stop, and kill what you started. */
  signal: AbortSignal;
  progress(message: string): void;
  /**
   * Report a started command's process group; resolves once the engine has durably
   * recorded it (only then may the command proceed). Rejects if the step is cancelled.
   */
  spawned(pgid: number): Promise<void>;
  /** Ask the engine (tools); rejects with the engine's error, or the cancel reason. */
  request<K extends StepRequest['op']>(request: Extract<StepRequest, { op: K }>): Promise<StepRequestResults[K]>;
  /** Record one provider call. */
  trace(trace: ModelCallTrace): void;
  /** Remember how a model calls tools. */
  learned(model: string, mode: ToolCallingMode): void;
}

/** A step kind module's default export. */
export type StepKindRun = (ctx: StepContext) => Promise<StepResult>;
