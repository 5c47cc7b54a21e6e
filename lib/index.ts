/** `import { openKowalski } from 'kowalski'`: the library's public face (docs/library.md). */
export { openKowalski } from './kowalski.js';
export type { AgentInfo, ChatAnswer, ChatOptions, Kowalski, OpenOptions, TokenPiece } from './kowalski.js';
export { KowalskiError, ERROR_CODES } from '../core/index.js';
export type { ErrorCode } from '../core/index.js';
export type {
  ChatSessionSummary, ChatStop, Engine, EngineConfig, RunState, RunView, StepView, TraceDetail, TraceSummary, TurnItem, TurnUsage, TurnView, UndoneWork, UserToolContext, UserToolDef,
} from '../engine/index.js';
