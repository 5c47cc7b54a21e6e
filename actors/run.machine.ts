/**
 * One XState v5 machine per run. It is pure: the engine computes each next snapshot
 * with xstate's `transition()` and performs the returned actions (effects) only after
 * the event has been committed to the log.
 */
import { enqueueActions, setup } from 'xstate';
import type { RunEvent } from './run.events.js';
import type { RunContext } from './run.context.js';
import { runStateOf } from './run.context.js';
import type { RunEffect } from './run.logic.js';
import { applyRunEvent, initialContext } from './run.logic.js';

export interface RunMachineInput {
  runId: string;
  created: Extract<RunEvent, { type: 'run.created' }>;
}

const settleTo = [
  { guard: 'isCancelled', target: 'cancelled' },
  { guard: 'isFailed', target: 'failed' },
  { guard: 'isRunning', target: 'running' },
  { guard: 'isAwaitingInput', target: 'awaiting_input' },
  { guard: 'isSucceeded', target: 'succeeded' },
] as const;

export const runMachine = setup({
  types: {
    context: {} as RunContext,
    events: {} as RunEvent,
    input: {} as RunMachineInput,
    /** Effects are emitted, never performed: the engine performs them after the commit. */
    emitted: {} as { type: 'effect'; effect: RunEffect },
  },
  guards: {
    isCancelled: ({ context }) => runStateOf(context) === 'cancelled',
    isFailed: ({ context }) => runStateOf(context) === 'failed',
    isRunning: ({ context }) => runStateOf(context) === 'running',
    isAwaitingInput: ({ context }) => runStateOf(context) === 'awaiting_input',
    isSucceeded: ({ context }) => runStateOf(context) === 'succeeded',
  },
}).createMachine({
  id: 'run',
  context: ({ input }) => initialContext(input.runId, input.created),
  initial: 'queued',
  on: {
    '*': {
      actions: enqueueActions(({ context, event, enqueue }) => {
        const { context: next, effects } = applyRunEvent(context, event);
        enqueue.assign(() => next);
        for (const effect of effects) enqueue.emit({ type: 'effect', effect });
      }),
    },
  },
  states: {
    queued: { always: [...settleTo] },
    running: { always: [...settleTo] },
    awaiting_input: { always: [...settleTo] },
    succeeded: { type: 'final' },
    failed: { type: 'final' },
    cancelled: { type: 'final' },
  },
});
