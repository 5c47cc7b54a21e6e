/**
 * A horde after loading and validation: plain JSON data (it is stored in the first
 * event of every run as the run's snapshot of its horde). Field names are the
 * normalised ones; the 1.x aliases are resolved by the loader.
 */
import type { BudgetLimits } from './budget.js';
import type { CatchUp, EdgeDef, InputField, InputType, Overlap, Problem, TriggerKind } from '../contract/horde.js';
export type { CatchUp, EdgeDef, EdgeWhen, InputField, InputType, Overlap, Problem, ProblemSeverity, TriggerKind } from '../contract/horde.js';

export const MODEL_STEP_KINDS = ['process', 'deliver', 'compile', 'ask', 'lint', 'step', 'final'] as const;
export const TOOL_STEP_KINDS = ['ingest', 'table_profile', 'sql_batch', 'xlsx_report', 'verify', 'apply'] as const;
/** Kinds that run nothing: a human gate (`review` parks on the previous step's artifact). */
export const GATE_STEP_KINDS = ['review'] as const;
/** One turn of a team profile (`agent = "researcher"`), with its tools and delegation, run by the engine's chat. */
export const AGENT_STEP_KINDS = ['agent'] as const;
/** Kinds that write outside the run, through an audited path (`vault_note`: a note of the vault). */
export const VAULT_STEP_KINDS = ['vault_note'] as const;
/** Kinds that deliver outside kowalski, through a configured adapter (`send`: a message to a Slack channel, a mail). */
export const SEND_STEP_KINDS = ['send'] as const;
/** Kinds that call one tool of a configured MCP server without a model (`mcp_call`: its result becomes a file the data steps read). */
export const CALL_STEP_KINDS = ['mcp_call'] as const;
export const STEP_KINDS = [...TOOL_STEP_KINDS, ...MODEL_STEP_KINDS, ...AGENT_STEP_KINDS, ...GATE_STEP_KINDS, ...VAULT_STEP_KINDS, ...SEND_STEP_KINDS, ...CALL_STEP_KINDS] as const;
export type StepKind = (typeof STEP_KINDS)[number];

export const INPUT_TYPES: readonly InputType[] = ['text', 'textarea', 'url', 'choice', 'path', 'file', 'folder'];

export type Isolation = 'in_process' | 'process';
export const ISOLATIONS: readonly Isolation[] = ['in_process', 'process'];
export type ApplyMode = 'dry-run' | 'execute';
/** How a `vault_note` step writes its note: a new note (refused when there is one), or added to the end of it (made when there is none). */
export type NoteMode = 'create' | 'append';
export const NOTE_MODES: readonly NoteMode[] = ['create', 'append'];

/** A `vault_note` step's note: its vault path, with `{{date}}` (the run's day, UTC) and `{{run_id}}` left to fill at run time. */
export interface NoteSpec {
  path: string;
  mode: NoteMode;
}
export const APPLY_MODES: readonly ApplyMode[] = ['dry-run', 'execute'];

/**
 * A `send` step's delivery: the configured adapter (`[adapters.<name>]`), whom it goes to (a
 * Slack channel, a mail address) and, for mail, the subject. Each may hold `{{input.<id>}}`,
 * `{{date}}` (the run's day, UTC) and `{{run_id}}`, filled when the step runs; an adapter
 * that fills to nothing means "do not send" (the step passes, saying so).
 */
/**
 * An `mcp_call` step's call: the tool (`server.tool`) and its arguments, a table or JSON text
 * of an object; the tool name and every string in them may hold `{{input.<id>}}`, `{{date}}`
 * and `{{run_id}}`. A tool that fills to nothing means "do not call" (the step passes, saying so).
 */
export interface CallSpec {
  tool: string;
  arguments: Record<string, unknown> | string;
}

export interface SendSpec {
  adapter: string;
  to: string;
  subject?: string;
}

export interface NormalizeSpec {
  docTitle?: string;
  sections?: string[];
  fallback?: string;
  fallbackSections?: string[];
}

export interface StepDef {
  name: string;
  /** One of STEP_KINDS, or a kind registered with the engine (tests and benchmarks register their own). */
  kind: string;
  /** The file it came from, relative to the horde folder, e.g. `agents/check.md`. */
  file: string;
  displayName: string;
  description?: string;
  /** Relative to the horde folder. */
  promptFile?: string;
  /** The step's output file, relative to the run's workdir (a trailing `/` already resolved to `<folder>/<step>.md`). */
  output: string;
  /** `context_paths` / `reads`: workdir-relative paths, `@artifact@`, `@step:<name>@`. */
  context: string[];
  /** `tool_ids` / `tools` as written; `fs_tool` (1.x) is the file tools confined to the run's project folder, offered by the engine. */
  tools: string[];
  model?: string;
  /** An `agent` step's team profile (`agent = "researcher"`). */
  agent?: string;
  /** Seconds; absent = the configured default. */
  timeoutSecs?: number;
  isolation: Isolation;
  verifyCommand?: string;
  verifyCwd?: string;
  /** Only for `apply`; default `dry-run`. */
  applyMode?: ApplyMode;
  /** Only for `vault_note`: the note it writes (what it reads, in `context`, is what it writes). */
  note?: NoteSpec;
  /** Only for `send`: where what it reads goes (what it reads, in `context`, is what it sends). */
  send?: SendSpec;
  /** Only for `mcp_call`: the tool it calls; its result is written to `output`. */
  call?: CallSpec;
  normalize?: NormalizeSpec;
  inputs: InputField[];
  /** The Markdown body: documentation for people, never executed. */
  body: string;
  /** Display keys and unknown keys, kept as written (unknown keys are never an error). */
  extra: Record<string, unknown>;
}

export interface TriggerDef {
  name: string;
  kind: TriggerKind;
  enabled: boolean;
  overlap: Overlap;
  /** Pre-filled form answers. */
  input: Record<string, string>;
  schedule?: string;
  timezone?: string;
  catchUp?: CatchUp;
  path?: string;
  globs?: string[];
  debounceMs?: number;
  secretEnv?: string;
  extra: Record<string, unknown>;
}

export interface HordeDef {
  id: string;
  displayName: string;
  description: string;
  /** Step names in topological order. */
  pipeline: string[];
  steps: Record<string, StepDef>;
  /** Every edge of the graph, the written ones and the implicit pipeline-order ones. */
  edges: EdgeDef[];
  triggers: TriggerDef[];
  confirmCommands: boolean;
  /** Relative to the run's directory; default `output`. */
  workdir: string;
  /** Relative to the workdir; default `HANDOFF.md`. */
  deliveryRootRel: string;
  /** The display copy keys (`default_question`, `prompt_tip`, …) as written. */
  display: Record<string, string>;
  /** The run form: the inputs of the first step (in pipeline order) that declares any. */
  inputs: InputField[];
  body: string;
  extra: Record<string, unknown>;
  /** sha256 over the folder's files (path + bytes, sorted by path), hex. */
  hash: string;
  /** Absolute path of the folder it was loaded from. */
  dir: string;
  /** The manifest file when it is 1.x's `app.md` (the folder has no horde.md); absent = `horde.md`. */
  manifest?: 'app.md';
  /** `[budget]`: the run's limits (over config.toml's `[budget]` defaults); absent = none written. */
  budget?: BudgetLimits;
  /** Where it was found; `imported`: installed from a bundle (its steps always run in a separate process, its triggers arrive off). */
  origin: 'builtin' | 'user' | 'imported' | 'path';
  /**
   * In a run's snapshot only: the text of every step's prompt file as it was when the run
   * started (by `prompt_file` path), so an edit of the folder never changes a run in flight.
   */
  prompts?: Record<string, string>;
}

export type LoadResult = { ok: true; horde: HordeDef; warnings: Problem[] } | { ok: false; problems: Problem[] };
