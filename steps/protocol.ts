/**
 * The one message protocol between the engine and a running step, the same for a
 * Piscina worker thread and for an isolated child process. Everything here is plain
 * data (structured-clone and JSON safe); errors travel as PlainError.
 */
import type { HordeDef, PlainError, StepDef } from '../core/index.js';

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
  /** The run's form answers. */
  input: Record<string, string>;
  /** Workdir-relative output of the step that led here (for `@artifact@`), if any. */
  previousOutput?: string;
  /** Workdir-relative outputs of every step of the horde, for `@step:<name>@`. */
  stepOutputs: Record<string, string>;
  /** For verify/apply: the command resolved by the engine; when approval was needed, the approved one. */
  command?: CommandSpec & { hash: string };
  /** A random token put in the environment of every process the step starts (KOWALSKI_STEP_TOKEN), so leftovers can be found after a crash. */
  token: string;
  /** Limits for this step. */
  limits: StepLimits;
  /** True when the engine was started with a configured model provider (the models issue fills this in). */
  modelConfigured: boolean;
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

/** How a step ended. `pass`/`fail` route the edges; an error is a `fail` with `error` set. */
export interface StepResult {
  outcome: 'pass' | 'fail';
  /** Workdir-relative path of the artifact written (normally `step.output`). */
  artifact?: string;
  /** One line for the operator. */
  summary?: string;
  error?: PlainError;
}

/** Step → engine. */
export type StepMessage =
  /** A command was started in its own process group; the step waits for `go` before the command runs. */
  | { type: 'spawned'; pgid: number; token: string }
  | { type: 'progress'; message: string }
  | { type: 'done'; result: StepResult };

/** Engine → step. */
export type EngineMessage =
  /** The `spawned` record is committed: the command may run. */
  | { type: 'go' }
  | { type: 'cancel'; reason: string };

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
}

/** A step kind module's default export. */
export type StepKindRun = (ctx: StepContext) => Promise<StepResult>;
