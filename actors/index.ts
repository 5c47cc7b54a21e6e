export { runMachine } from './run.machine.js';
export type { RunMachineInput } from './run.machine.js';
export { initialContext } from './run.logic.js';
export type { RunEffect } from './run.logic.js';
export { runStateOf, isSettled, RUN_STATES, FINAL_RUN_STATES } from './run.context.js';
export type { RunContext, RunState, StepState, StepStatus, EdgeState, PendingApproval } from './run.context.js';
export type { RunEvent, RunEventType, StepPolicy, EventError, ApprovalCommand, ApprovalReason, RunGraph } from './run.events.js';
export { foldRun, RunActor } from './run.fold.js';
export type { SendResult } from './run.fold.js';
