export { runMachine } from './run.machine.js';
export type { RunMachineInput } from './run.machine.js';
export { initialContext, reusesResult } from './run.logic.js';
export type { RunEffect } from './run.logic.js';
export { decide } from './run.decide.js';
export type { DecideFacts, Decision } from './run.decide.js';
export { runStateOf, isSettled, RUN_STATES, FINAL_RUN_STATES } from './run.context.js';
export type { RunContext, RunState, StepState, StepStatus, EdgeState, PendingApproval, ReviewEdit } from './run.context.js';
export type { RunEvent, RunEventType, StepPolicy, EventError, ApprovalCommand, ApprovalReason, RunGraph, ReviewedArtifact } from './run.events.js';
export type { RerunOrigin, ReusedResult } from './run.events.js';
export { foldRun, RunActor } from './run.fold.js';
export type { SendResult } from './run.fold.js';
export { chatMachine } from './chat.machine.js';
export type { ChatMachineInput } from './chat.machine.js';
export { ChatActor, foldChat } from './chat.fold.js';
export type { ChatSendResult } from './chat.fold.js';
export { CHAT_STATES, ROOT_NODE, agentChain, budgetLeft, callKey, childNode, toolKey } from './chat.logic.js';
export type { ChatContext, ChatState, Exchange, RecordedCall, RecordedTool, TurnNode, TurnRecord } from './chat.logic.js';
export type {
  ChatEvent, ChatEventType, ChatStop, InjectedMemory, ProfileSnapshot, RecordedResponse, RecordedToolCall, TurnUsage, UndoneWork,
} from './chat.events.js';
