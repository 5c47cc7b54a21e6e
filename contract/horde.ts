/** Hordes as the API shows them (`GET /api/hordes`, `/api/hordes/:id`, its readiness), and the parts of a loaded horde they show as they are. */
import type { ProbeStatus } from './setup.js';

/**
 * `path`: an existing file or folder, copied in by `ingest`; `file`: an existing file, copied
 * in; `folder`: an existing folder, used where it is (not copied). All three are checked
 * before a run exists (engine/runs/input-paths.ts).
 */
export type InputType = 'text' | 'textarea' | 'url' | 'choice' | 'path' | 'file' | 'folder';

/** One field of a run form (a step's `[[inputs]]`). */
export interface InputField {
  id: string;
  type: InputType;
  /** Defaults to the id. */
  label: string;
  required: boolean;
  placeholder?: string;
  /** Only for `choice`. */
  options?: string[];
  default?: string;
}

export type EdgeWhen = 'pass' | 'fail' | 'always';

/** One edge of a horde's graph. */
export interface EdgeDef {
  from: string;
  to: string;
  when: EdgeWhen;
  /** Only on loop-back edges. */
  maxLoops?: number;
  /** True when `to` is at or before `from` in pipeline order. */
  back: boolean;
  /** True for edges the loader added to follow pipeline order (not written in horde.md). */
  implicit: boolean;
}

export type TriggerKind = 'cron' | 'watch' | 'webhook';
export type CatchUp = 'skip' | 'once' | 'all';
export type Overlap = 'skip' | 'queue_one' | 'parallel';

export type ProblemSeverity = 'error' | 'warning';

/** One validation problem: what is wrong and exactly where. */
export interface Problem {
  severity: ProblemSeverity;
  code: string;
  /** Relative to the horde folder, e.g. `horde.md` or `agents/check.md`. */
  file: string;
  /** The key, e.g. `edges[2].max_loops`, when the problem is about one. */
  key?: string;
  line?: number;
  message: string;
  /** Only on a KW_ERR_TOO_MANY_PROBLEMS summary: how many problems it stands for, which are not listed. */
  omitted?: { errors: number; warnings: number };
}

/** Where a listed horde comes from (the catalog holds only built-in hordes and the user's; `imported`: installed from a bundle). */
export type HordeOrigin = 'builtin' | 'user' | 'imported';

/** A trigger as a horde's summary lists it. */
export interface HordeTrigger {
  name: string;
  kind: TriggerKind;
  enabled: boolean;
  schedule?: string;
  timezone?: string;
  path?: string;
}

export interface HordeSummary {
  id: string;
  displayName: string;
  description: string;
  origin: HordeOrigin;
  valid: boolean;
  problems: Problem[];
  inputs: InputField[];
  triggers: HordeTrigger[];
  stepCount: number;
  /** Set on a horde whose id an earlier horde (a built-in) already has: the one that runs under that id. */
  idTakenBy?: { origin: string; dir: string };
}

/** A step as a horde's detail shows it. */
export interface HordeStep {
  name: string;
  kind: string;
  displayName: string;
  description?: string;
  output: string;
  /** `in_process` or `process`. */
  isolation: string;
  verifyCommand?: string;
  tools: string[];
  model?: string;
}

export interface HordeDetail extends HordeSummary {
  pipeline: string[];
  steps: HordeStep[];
  edges: EdgeDef[];
  display: Record<string, string>;
  body: string;
  confirmCommands: boolean;
  /** Whether any step runs a command (a kind such as `verify`, `apply`): only then does `confirmCommands` matter. */
  runsCommands: boolean;
}

/** One model a horde's model steps use, checked (`GET /api/hordes/:id/readiness`). */
export interface ModelReadiness {
  /** `provider:model` as written, or null when no model is configured for these steps. */
  model: string | null;
  /** The model steps that use it, in pipeline order. */
  steps: string[];
  status: ProbeStatus;
  /** One sentence naming what to fix and where (config.toml, the app's Setup screen). */
  message: string;
}

/** `GET /api/hordes/:id/readiness`: can a horde's model steps run? */
export interface HordeReadiness {
  hordeId: string;
  /** True when every model the horde's model steps use answered `ok` (a horde with no model step is ready). */
  ready: boolean;
  models: ModelReadiness[];
  /** The config.toml that sets the models (for messages and the Setup link). */
  configFile: string;
}
