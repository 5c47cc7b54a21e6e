/**
 * The Rookery (`/api/rookery`): a horde draft, what the Rookery builds before a horde folder
 * exists. Plain JSON, in the snake_case of the folder's own keys, so a draft reads like the
 * files it becomes and an MCP client can write one by hand.
 */
import type { EdgeWhen, Problem } from './horde.js';

/** One `[[inputs]]` entry of a step's front matter: the run form. */
export interface DraftInput {
  id: string;
  type?: string;
  label?: string;
  required?: boolean;
  placeholder?: string;
  options?: string[];
  default?: string;
}

/** One step: becomes `agents/<name>.md` (+ `prompts/<name>.md` when it has a prompt). */
export interface DraftStep {
  /** Kebab-case after normalising; the file name `agents/<name>.md`. */
  name: string;
  /** A step kind the engine knows (`ingest`, `process`, `verify`, …). */
  kind: string;
  display_name: string;
  description: string;
  /** Written to `prompts/<name>.md`; empty for steps that use no model. */
  prompt_body: string;
  /** Relative to the run's workdir; default `<name>.md`. */
  output: string;
  /** `@artifact@`, `@step:<name>@` or workdir-relative paths. */
  context_paths: string[];
  tools: string[];
  model?: string;
  /** An `agent` step's team profile. */
  agent?: string;
  inputs: DraftInput[];
  verify_command?: string;
  verify_cwd?: string;
  apply_mode?: 'dry-run' | 'execute';
  /** A `vault_note` step's note path in the vault (`{{date}}`, `{{run_id}}`), and whether it makes the note or adds to it. */
  note?: string;
  note_mode?: 'create' | 'append';
  /** A `send` step's adapter (`[adapters.<name>]`), recipient and mail subject (`{{input.<id>}}`, `{{date}}`, `{{run_id}}`). */
  adapter?: string;
  to?: string;
  subject?: string;
  /** An `mcp_call` step's tool (`server.tool`) and its arguments (a table, or the JSON text of an object). */
  tool?: string;
  arguments?: Record<string, unknown> | string;
  timeout_secs?: number;
  isolation?: 'in_process' | 'process';
}

export interface DraftEdge {
  from: string;
  to: string;
  when?: EdgeWhen;
  /** Required on an edge that goes back in step order. */
  max_loops?: number;
}

export interface HordeDraft {
  /** `[a-z0-9][a-z0-9-]*`; the folder name under the output root. */
  id: string;
  display_name: string;
  description: string;
  /** In pipeline order. */
  steps: DraftStep[];
  /** Empty: a straight line in step order. */
  edges: DraftEdge[];
  /** `[[triggers]]` tables as written in horde.md (name, kind, schedule, …). */
  triggers: Record<string, unknown>[];
  workdir?: string;
  delivery_root_rel?: string;
  confirm_commands?: boolean;
  /** Display copy of horde.md (`default_question`, `prompt_tip`, `delivery_title`, …). */
  display?: Record<string, string>;
}

/** A problem of a draft, pointed at the step and key it is about (from the engine's own loader). */
export interface DraftProblem extends Problem {
  /** The step the problem is in, when it is in one. */
  step?: string;
}

/** Where a Rookery conversation stands: still asking, a draft that validates, or a horde written. */
export type RookeryStage = 'interview' | 'proposed' | 'born';

export interface BirthResult {
  horde_id: string;
  /** Absolute path of the written folder. */
  horde_root: string;
  /** The written folder loaded by the engine's loader. */
  validate_ok: boolean;
  problems: DraftProblem[];
}

/** A draft as every surface shows it (`GET /api/rookery/drafts/:id`): the draft, its problems, its stage, and what its last birth wrote. */
export interface DraftView {
  id: string;
  /** The chat session building it (null: built in the editor only). */
  session_id: string | null;
  draft: HordeDraft;
  stage: RookeryStage;
  /** The engine's own check of the draft as it is now. */
  ok: boolean;
  problems: DraftProblem[];
  /** What the last birth wrote (the draft may have changed since: then `stage` is not `born`). */
  born: BirthResult | null;
  born_at: number | null;
  created_at: number;
  updated_at: number;
}

/** A line of the list (`GET /api/rookery/drafts`; no check: that needs the loader). */
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
export interface StepKindSummary {
  kind: string;
  /** True when the step asks a model. */
  model: boolean;
  summary: string;
}
