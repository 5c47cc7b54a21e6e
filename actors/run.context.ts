/** The run machine's context: plain data, rebuilt by folding the run's events. */
import type { BudgetKey, BudgetLimits, BudgetSpent } from '../core/index.js';
import type { ApprovalCommand, ApprovalReason, EventError, ReviewedArtifact, RunGraph, StepPolicy } from './run.events.js';
import type { RunState } from '../contract/runs.js';
export type { RunState } from '../contract/runs.js';

export type StepStatus =
  | 'pending' // not reached yet
  | 'ready' // may start (or ask for approval first)
  | 'awaiting_approval' // parked until the operator decides
  | 'running'
  | 'unknown' // interrupted and not safe to re-run: the engine asks the operator
  | 'passed'
  | 'failed'
  | 'skipped'; // every branch that could reach it was not taken

export type EdgeState = 'pending' | 'taken' | 'dead';

export interface PendingApproval {
  reason: ApprovalReason;
  command: ApprovalCommand;
  hash: string;
  /** A review's artifact (reason `review`). */
  artifact?: ReviewedArtifact;
}

/** An operator's edit of a reviewed artifact: committed, and applied by the review step's attempt. */
export interface ReviewEdit {
  path: string;
  /** sha256 of the artifact as it was shown, and as the operator left it. */
  before: string;
  after: string;
}

export interface StepState {
  status: StepStatus;
  /** Attempts started so far (the next one is `attempts + 1`). */
  attempts: number;
  /** Process group and token of the running attempt's command, when it started one. */
  pgid?: number;
  token?: string;
  outcome?: 'pass' | 'fail';
  artifact?: string;
  summary?: string;
  error?: EventError;
  /** A loop-back edge re-activated this step. */
  activated: boolean;
  /** The step whose output led here (`@artifact@`). */
  from?: string;
  pending?: PendingApproval;
  /** The command hash the operator approved for this step (covers the rest of the run); for a review, the artifact's hash (this pass only). */
  approvedHash?: string;
  /** A review step's approved edit, until the step finishes. */
  edit?: ReviewEdit;
}

export interface RunContext {
  runId: string;
  hordeId: string;
  graph: RunGraph;
  policy: Record<string, StepPolicy>;
  steps: Record<string, StepState>;
  /** Parallel to graph.edges. */
  edges: EdgeState[];
  /** Loop-backs taken, per edge index. */
  loops: number[];
  /** Set when the run has failed. */
  error?: EventError;
  cancelled?: { reason: string; by: string };
  /** The run's limits, and while it is parked for its budget what was over and spent then. */
  budget: RunBudget;
}

export interface RunBudget {
  limits: BudgetLimits;
  parked?: { over: BudgetKey[]; spent: BudgetSpent };
}

export const RUN_STATES: readonly RunState[] = ['queued', 'running', 'awaiting_input', 'succeeded', 'failed', 'cancelled'];
export const FINAL_RUN_STATES: ReadonlySet<RunState> = new Set(['succeeded', 'failed', 'cancelled']);

/** Finished, or parked waiting for the operator: what anyone following a run waits for. */
export function isSettled(state: RunState): boolean {
  return FINAL_RUN_STATES.has(state) || state === 'awaiting_input';
}

/** The state a context is in (the machine's `always` transitions follow this). */
export function runStateOf(ctx: RunContext): RunState {
  if (ctx.cancelled !== undefined) return 'cancelled';
  if (ctx.error !== undefined) return 'failed';
  let started = false;
  let ready = false;
  let parked = false;
  for (const name of ctx.graph.pipeline) {
    const s = ctx.steps[name]!;
    if (s.status === 'running') return 'running';
    if (s.attempts > 0) started = true;
    if (s.status === 'ready') ready = true;
    if (s.status === 'awaiting_approval' || s.status === 'unknown') parked = true;
  }
  // Parked for its budget: nothing more starts until the operator raises it (or cancels).
  if (ready && ctx.budget.parked !== undefined) return 'awaiting_input';
  if (ready) return started ? 'running' : 'queued';
  if (parked) return 'awaiting_input';
  return 'succeeded';
}
