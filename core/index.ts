export { ERROR_CODES, KowalskiError, toPlainError, fromPlainError, isErrorCode, formatWhere, messageOf } from './errors.js';
export type { ErrorCode, ErrorGroup, PlainError } from './errors.js';
export { STEP_KINDS, MODEL_STEP_KINDS, TOOL_STEP_KINDS, GATE_STEP_KINDS, AGENT_STEP_KINDS, VAULT_STEP_KINDS, SEND_STEP_KINDS, CALL_STEP_KINDS, INPUT_TYPES, ISOLATIONS, APPLY_MODES, NOTE_MODES } from './horde.js';
export type {
  StepKind, InputType, InputField, Isolation, ApplyMode, NoteMode, NoteSpec, SendSpec, CallSpec, NormalizeSpec, StepDef, EdgeWhen, EdgeDef,
  TriggerKind, CatchUp, Overlap, TriggerDef, HordeDef, ProblemSeverity, Problem, LoadResult,
} from './horde.js';
export { BUDGET_KEYS, BUDGET_LABELS, budgetValueProblem, budgetOver, mergeBudget, hasLimits, describeOver } from './budget.js';
export type { BudgetKey, BudgetLimits, BudgetSpent } from './budget.js';
export { formatBytes } from './bytes.js';
export { NO_PROGRESS, throttleProgress } from './progress.js';
export { ENV_NAME } from './env-name.js';
export { httpUrlOr } from './http-url.js';
export { AGENT_NAME, MAX_AGENT_NAME, badAgentName } from './agent-name.js';
export { VAULT_INPUT_PREFIX, vaultNoteOf } from './vault-ref.js';
