/** The public face of steps/: the runner the engine drives, the command contract, the step kinds' registry and helpers. */
export { DEFAULT_LIMITS } from './protocol.js';
export type {
  AgentTurnAnswer, VaultWriteAnswer, VaultReadAnswer, StepCallAnswer, SendAnswer, CommandSpec, StepTask, StepLimits, ModelTask, StepRequest, StepRequestResults, StepResult, StepMessage, EngineMessage, ChildInbound, StepContext, StepKindRun,
} from './protocol.js';
export type { ReviewTask } from './protocol.js';
export { MISSING_ARTIFACT, fileState, sha256Of, stageEdit, stagedEditPath } from './review-file.js';
export type { FileState } from './review-file.js';
export { builtinStepKinds } from './registry.js';
export type { StepKindInfo } from './registry.js';
export {
  resolveCommand, hashCommand, commandEnv, approvedCommand,
  PASSTHROUGH_ENV, STEP_ENV,
} from './command.js';
export type { CommandContext } from './command.js';
export { resolveProject, PROJECT_INPUT } from './project.js';
export type { ProjectFolder } from './project.js';
export { execCommand, GATE_SCRIPT, GATE_CLOSED_EXIT } from './exec.js';
export { killGroup } from './kill-group.js';
export type { ExecOptions, ExecResult } from './exec.js';
export { BoundedCapture } from './capture.js';
export type { CapturedOutput } from './capture.js';
export { killLeftovers, findTokenProcesses, waitUntilNoneLeft, isAlive } from './leftovers.js';
export type { KillLeftoversOptions } from './leftovers.js';
export { createStepRunner } from './runner.js';
export { poolSize } from './pool.js';
export { thisBuild, inheritedExecArgv, threadExecArgv } from './own-code.js';
export type { OwnCode } from './own-code.js';
export type { StepRunner, StepRunnerOptions, StepHandlers, StartOptions, RunningStep } from './runner.js';
export { startStep, createKindLoader } from './context.js';
export type { StepChannel, BuiltContext } from './context.js';
export { writeArtifact, writeWorkdirFile, resolveContextRef, readContext, fence, inlineCode } from './artifact.js';
export { checkRelative, isWithin, resolveInside, writeFileAtomic } from './paths.js';
export { extractDiffBlocks, parseDiffBlocks, planPatches, writePlan } from './patch.js';
export type { DiffBlock, FilePatch, FileChange, Conflict, PatchPlan } from './patch.js';
