/**
 * A step's life inside a run: its statuses and the moves between them, declared once.
 * run.logic.ts changes a step's status only through `moveTo`; the guards that let a step
 * start or ask the operator read `canMove`; the property tests check that every move a
 * fold of random events makes is one listed here (and that each listed move happens);
 * docs/run-machine.md shows the table.
 */
import type { StepState, StepStatus } from './run.context.js';

/** From each status, the statuses a step may move to, and what moves it there. */
export const STEP_MOVES: Readonly<Record<StepStatus, Readonly<Partial<Record<StepStatus, string>>>>> = {
  pending: {
    ready: 'every branch into it is settled and one was taken, or a loop-back leads to it',
    skipped: 'every branch into it is dead',
  },
  ready: {
    running: '`step.started`',
    awaiting_approval: '`approval.requested`: a command to confirm, an artifact to review',
  },
  running: {
    passed: '`step.finished` (pass)',
    failed: '`step.finished` (fail)',
    ready: '`step.interrupted`, safe to run again',
    unknown: '`step.interrupted`, not safe to repeat',
  },
  unknown: { awaiting_approval: '`approval.requested` (outcome unknown)' },
  awaiting_approval: { ready: '`approval.granted`', failed: '`approval.denied`' },
  passed: { pending: 'a loop-back runs it again' },
  failed: { pending: 'a loop-back runs it again' },
  skipped: { pending: 'a loop-back runs it again' },
};

/** Whether a step in status `from` may move to `to` (a different status). */
export function canMove(from: StepStatus, to: StepStatus): boolean {
  return STEP_MOVES[from][to] !== undefined;
}

/** The step moved to `status`, with `patch` applied (a fresh object). */
export function moveTo(step: StepState, status: StepStatus, patch: Partial<Omit<StepState, 'status'>> = {}): StepState {
  return { ...step, ...patch, status };
}
