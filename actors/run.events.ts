/**
 * The run machine's events: a closed union tagged by `type`. These are exactly the
 * events stored in the log (engine/store/events.ts wraps each in a versioned envelope);
 * folding a run's events through the machine rebuilds its state.
 */
import type { BudgetKey, BudgetLimits, BudgetSpent, EdgeDef, ErrorCode, HordeDef } from '../core/index.js';
import type { ApprovalCommand, ApprovalReason } from '../contract/runs.js';
import type { CodedError } from '../contract/errors.js';
export type { ApprovalCommand, ApprovalReason } from '../contract/runs.js';

/** What the engine decided about a step when the run was created (kept with the run, so replay never depends on today's registry). */
export interface StepPolicy {
  /** The step runs a command and the horde asks before running it. */
  approval: boolean;
  /** Safe to run again after a crash; `apply` is not. */
  idempotent: boolean;
  /**
   * A re-run (`kowalski rerun --from`): this step's first attempt in the new run does not
   * run, it takes the old run's recorded result (its files copied into the new run's
   * workdir) and needs no approval, since nothing runs. A later attempt (a loop back to
   * it) runs as usual.
   */
  reuse?: ReusedResult;
  /** A `review` step: it parks on the previous step's artifact, and its approval binds to that file's content hash (absent: not a review). */
  review?: true;
}

/** The result of a step in an earlier run that a re-run takes instead of running the step. */
export interface ReusedResult {
  /** The earlier run. */
  run: string;
  /** Its attempt whose result is reused (the step's first finished one there). */
  attempt: number;
  outcome: 'pass' | 'fail';
  /** Workdir-relative, in both runs. */
  artifact?: string;
  summary?: string;
}

/** What a re-run keeps in its `run.created`: where it comes from and how. */
export interface RerunOrigin {
  /** The earlier run. */
  run: string;
  /** The first step that runs again; the steps before it in the pipeline reuse the earlier run's results (`StepPolicy.reuse`). */
  from: string;
  /** The earlier run's workdir, relative to its run folder (its horde's `workdir`). */
  workdir: string;
  /** Model steps answer a model call from the earlier run's traces when the request (model, messages, tools) is the same. */
  replayModels: boolean;
}

/** An error as stored in the log. */
export type EventError = CodedError<ErrorCode>;

/** What a review shows the operator: the previous step's artifact (its hash is the approval's `hash`). */
export interface ReviewedArtifact {
  /** Workdir-relative. */
  path: string;
  /** Its size when the review was asked; null when the file did not exist. */
  bytes: number | null;
}

export type RunEvent =
  | {
      type: 'run.created';
      hordeId: string;
      /** The horde as it was when the run started; the run finishes with it whatever happens to the folder. */
      horde: HordeDef;
      policy: Record<string, StepPolicy>;
      input: Record<string, string>;
      /** `cli`, `api`, `trigger:<name>`, `rerun:<run-id>`, … */
      provenance: string;
      /** The run's limits: the horde's `[budget]` over config.toml's; absent = none (runs before budgets). */
      budget?: BudgetLimits;
      /** Set on a re-run: the earlier run and how its results are reused. */
      rerun?: RerunOrigin;
    }
  | { type: 'step.started'; step: string; attempt: number }
  | { type: 'step.spawned'; step: string; attempt: number; pgid: number; token: string }
  | {
      type: 'step.finished';
      step: string;
      attempt: number;
      outcome: 'pass' | 'fail';
      /** Workdir-relative. */
      artifact?: string;
      summary?: string;
      error?: EventError;
      durationMs: number;
      /** The step did not run: its result (and files) came from an earlier run (a re-run's `StepPolicy.reuse`); `hash` is the sha256 of the copied artifact. */
      reusedFrom?: { run: string; attempt: number; hash?: string };
    }
  /** Recovery found the step started with no result: the process that ran it died. */
  | { type: 'step.interrupted'; step: string; attempt: number }
  | {
      type: 'approval.requested'; step: string; reason: ApprovalReason; command: ApprovalCommand; hash: string;
      /** Only with reason `review`: the artifact shown, whose sha256 is `hash`. */
      artifact?: ReviewedArtifact;
    }
  /**
   * The operator edited the artifact a review step waits on (committed before the file is
   * replaced: the review step's attempt replaces it from the staged copy). The approval
   * that follows binds to `after`.
   */
  | { type: 'artifact.edited'; step: string; path: string; before: string; after: string; diff: string; by: string }
  | { type: 'approval.granted'; step: string; hash: string; by: string }
  | { type: 'approval.denied'; step: string; reason: string; by: string }
  | { type: 'run.cancelled'; reason: string; by: string }
  /** A step was about to start and the run had spent a limit (`over`): parked for the operator (reason "budget"). */
  | { type: 'budget.exceeded'; over: BudgetKey[]; spent: BudgetSpent; limits: BudgetLimits }
  /** The operator set new limits (the keys given replace the run's); a parked run goes on when nothing is over any more. */
  | { type: 'budget.raised'; limits: BudgetLimits; by: string };

export type RunEventType = RunEvent['type'];

/** The graph part of a horde the machine needs. */
export interface RunGraph {
  pipeline: string[];
  edges: EdgeDef[];
}
