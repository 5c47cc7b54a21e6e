/**
 * The life of a run, as one XState v5 machine. Each state lists the events it accepts,
 * each a guarded transition with its context update and its effects; an event a state
 * does not list, or whose guard fails, is refused (the engine reports the log as
 * diverged). The machine is pure: its effects (`dispatch`, `kill`) are emitted to the
 * actor that drives it (run.fold.ts) and performed by the engine only after the events
 * that caused them are committed. `docs/run-machine.md` is generated from this file.
 */
import { assign, emit, enqueueActions, setup } from 'xstate';
import type { RunEvent } from './run.events.js';
import type { RunContext } from './run.context.js';
import { runStateOf } from './run.context.js';
import {
  canAsk, canPark, canStart, cancelRun, denyApproval, editFits, finishAttempt, grantApproval, grantFits, initialContext, interruptStep,
  isRunningAttempt, isWaiting, parkForBudget, raiseBudget, recordEdit, recordSpawn, requestApproval, runningAttempts, startStep,
} from './run.logic.js';
import type { RunEffect } from './run.logic.js';

export interface RunMachineInput {
  runId: string;
  created: Extract<RunEvent, { type: 'run.created' }>;
}

type Of<T extends RunEvent['type']> = Extract<RunEvent, { type: T }>;

/** The attempt a `step.started` names: hand it to a worker. */
const dispatchIt = { type: 'dispatch', params: ({ event }: { event: RunEvent }) => {
  const e = event as Of<'step.started'>;
  return { step: e.step, attempt: e.attempt };
} } as const;

const settle = [
  { guard: 'ended: cancelled', target: 'cancelled' },
  { guard: 'ended: failed', target: 'failed' },
  { guard: 'a step runs, or may run again', target: 'running' },
  { guard: 'nothing has started, and a root step may start', target: 'queued' },
  { guard: 'a step waits for the operator', target: 'awaiting_input' },
  { target: 'succeeded' },
] as const;

export const runMachine = setup({
  types: {
    context: {} as RunContext,
    events: {} as RunEvent,
    input: {} as RunMachineInput,
    emitted: {} as RunEffect,
  },
  actions: {
    // Context updates (run.logic.ts).
    'start the step': assign(({ context, event }) => startStep(context, event as Of<'step.started'>)),
    'record its process group': assign(({ context, event }) => recordSpawn(context, event as Of<'step.spawned'>)),
    'record the outcome and route': assign(({ context, event }) => finishAttempt(context, event as Of<'step.finished'>)),
    'make it ready again, or unknown when unsafe': assign(({ context, event }) => interruptStep(context, event as Of<'step.interrupted'>)),
    'park the step with the command': assign(({ context, event }) => requestApproval(context, event as Of<'approval.requested'>)),
    'bind the approval, make it ready': assign(({ context, event }) => grantApproval(context, event as Of<'approval.granted'>)),
    'fail the step and route': assign(({ context, event }) => denyApproval(context, event as Of<'approval.denied'>)),
    'bind the approval to the edited artifact': assign(({ context, event }) => recordEdit(context, event as Of<'artifact.edited'>)),
    'record the cancel': assign(({ context, event }) => cancelRun(context, event as Of<'run.cancelled'>)),
    'park the run with what it spent': assign(({ context, event }) => parkForBudget(context, event as Of<'budget.exceeded'>)),
    'set the new limits, unpark': assign(({ context, event }) => raiseBudget(context, event as Of<'budget.raised'>)),
    // Effects: emitted to whoever drives the machine (RunActor), which hands them to the engine to perform after the commit.
    dispatch: emit((_args, params: { step: string; attempt: number }) => ({ type: 'dispatch' as const, ...params })),
    // Once the run has ended (failed or cancelled): every attempt still running, one effect each.
    kill: enqueueActions(({ context, enqueue }) => {
      if (context.cancelled === undefined && context.error === undefined) return;
      const reason = context.cancelled !== undefined ? 'cancelled' as const : 'run_failed' as const;
      for (const a of runningAttempts(context)) enqueue.emit({ type: 'kill', step: a.step, attempt: a.attempt, reason });
    }),
  },
  guards: {
    'the step is ready (and approved when it must be), attempt = the next': ({ context, event }) => canStart(context, event as Of<'step.started'>),
    'it is the running attempt': ({ context, event }) => isRunningAttempt(context, event as Of<'step.spawned'>),
    'the step is ready, or unknown after a crash': ({ context, event }) => canAsk(context, event as Of<'approval.requested'>),
    'the step waits, and the hash is the one shown': ({ context, event }) => grantFits(context, event as Of<'approval.granted'>),
    'the step waits for review, and the edit starts from the artifact shown': ({ context, event }) => editFits(context, event as Of<'artifact.edited'>),
    'the step waits for the operator': ({ context, event }) => isWaiting(context, event as Of<'approval.denied'>),
    'not parked for its budget, and a step is ready': ({ context }) => canPark(context),
    'ended: cancelled': ({ context }) => runStateOf(context) === 'cancelled',
    'ended: failed': ({ context }) => runStateOf(context) === 'failed',
    'a step runs, or may run again': ({ context }) => runStateOf(context) === 'running',
    'nothing has started, and a root step may start': ({ context }) => runStateOf(context) === 'queued',
    'a step waits for the operator': ({ context }) => runStateOf(context) === 'awaiting_input',
  },
}).createMachine({
  id: 'run',
  context: ({ input }) => initialContext(input.runId, input.created),
  initial: 'queued',
  states: {
    /** No step has started yet: every root step (no forward edge in) may start, or ask the operator first (a denial can route to another that then asks too). */
    queued: {
      on: {
        'step.started': { guard: 'the step is ready (and approved when it must be), attempt = the next', target: 'running', actions: ['start the step', dispatchIt] },
        'approval.requested': { guard: 'the step is ready, or unknown after a crash', target: 'settling', actions: 'park the step with the command' },
        'approval.granted': { guard: 'the step waits, and the hash is the one shown', target: 'settling', actions: 'bind the approval, make it ready' },
        'approval.denied': { guard: 'the step waits for the operator', target: 'settling', actions: 'fail the step and route' },
        'budget.exceeded': { guard: 'not parked for its budget, and a step is ready', target: 'settling', actions: 'park the run with what it spent' },
        'budget.raised': { target: 'settling', actions: 'set the new limits, unpark' },
        'run.cancelled': { target: 'cancelled', actions: 'record the cancel' },
      },
    },
    /** A step runs, or one may start now. */
    running: {
      on: {
        'step.started': { guard: 'the step is ready (and approved when it must be), attempt = the next', actions: ['start the step', dispatchIt] },
        'step.spawned': { guard: 'it is the running attempt', actions: 'record its process group' },
        'step.finished': { guard: 'it is the running attempt', target: 'settling', actions: ['record the outcome and route', 'kill'] },
        'step.interrupted': { guard: 'it is the running attempt', target: 'settling', actions: 'make it ready again, or unknown when unsafe' },
        'approval.requested': { guard: 'the step is ready, or unknown after a crash', target: 'settling', actions: 'park the step with the command' },
        'artifact.edited': { guard: 'the step waits for review, and the edit starts from the artifact shown', actions: 'bind the approval to the edited artifact' },
        'approval.granted': { guard: 'the step waits, and the hash is the one shown', actions: 'bind the approval, make it ready' },
        'approval.denied': { guard: 'the step waits for the operator', target: 'settling', actions: ['fail the step and route', 'kill'] },
        'budget.exceeded': { guard: 'not parked for its budget, and a step is ready', target: 'settling', actions: 'park the run with what it spent' },
        'budget.raised': { target: 'settling', actions: 'set the new limits, unpark' },
        'run.cancelled': { target: 'cancelled', actions: ['record the cancel', 'kill'] },
      },
    },
    /** Parked: nothing runs, and a step waits for the operator (an approval, a review of an artifact, or an outcome unknown after a crash), or the run for a raise of its budget. */
    awaiting_input: {
      on: {
        'budget.raised': { target: 'settling', actions: 'set the new limits, unpark' },
        'approval.requested': { guard: 'the step is ready, or unknown after a crash', actions: 'park the step with the command' },
        'artifact.edited': { guard: 'the step waits for review, and the edit starts from the artifact shown', actions: 'bind the approval to the edited artifact' },
        'approval.granted': { guard: 'the step waits, and the hash is the one shown', target: 'settling', actions: 'bind the approval, make it ready' },
        'approval.denied': { guard: 'the step waits for the operator', target: 'settling', actions: 'fail the step and route' },
        'run.cancelled': { target: 'cancelled', actions: 'record the cancel' },
      },
    },
    /** Not a resting state: chooses the run state the steps add up to after an event. */
    settling: { always: [...settle] },
    succeeded: { type: 'final' },
    failed: { type: 'final' },
    cancelled: { type: 'final' },
  },
});
