/** Chat sessions with the agent team: the public face of engine/chat. */
export { ChatService, isSessionId, MAX_MESSAGE_CHARS } from './chat-service.js';
export type { ChatServiceDeps, ChatSessionSummary, SendOptions, Sent } from './chat-service.js';
export type { StoredChatEvent } from './chat-events.js';
export type { TurnItem, TurnView } from './transcript.js';
export type { TurnOutcome, TurnToolCall } from './turn-run.js';
export { DELEGATE_TOOL, DEFAULT_MAX_DEPTH } from './delegation.js';
export { RECALL_TOOL, RECENT_TURNS_TOOL, REMEMBER_TOOL } from './memory-tools.js';
export { MEMORY_FOLDER, memoryPath } from './remember.js';
export type { MemoryVault } from './remember.js';
export { MEMORY_TRACE_STEP } from './turn-memory.js';
export type { ConsolidateOptions, ConsolidateResult } from './consolidate.js';
