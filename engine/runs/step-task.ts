/** Build what a step attempt needs, fixed before it starts (identity before await). */
import crypto from 'node:crypto';
import path from 'node:path';
import { KowalskiError } from '../../core/index.js';
import type { StepDef } from '../../core/index.js';
import { fillStepField } from '../../core/step-fields.js';
import type { ApprovalCommand } from '../../actors/index.js';
import { DEFAULT_LIMITS, hashCommand, resolveCommand, stagedEditPath } from '../../steps/index.js';
import type { CommandSpec, ModelTask, ReviewTask, StepKindInfo, StepTask } from '../../steps/index.js';
import type { LiveRun } from './live-run.js';

/** A step whose kind this build has no runner for (at start, or in a run started by a build that had it). */
export function unknownKind(step: StepDef): KowalskiError {
  return new KowalskiError('KW_ERR_STEP_KIND_UNKNOWN', `step "${step.name}" has kind "${step.kind}", which this kowalski cannot run`, { where: { file: step.file, key: 'kind' } });
}

/** The workdir-relative output of the step whose result led to `step` (its `@artifact@`). */
export function previousOutputOf(run: LiveRun, step: string): string | undefined {
  const from = run.actor.context.steps[step]?.from;
  return from === undefined ? undefined : run.horde.steps[from]?.output;
}

/**
 * The exact command a step will run, as the operator sees it, with its hash. Resolving
 * is pure (steps/command.ts), so the run keeps each result: asking for the approval,
 * checking it and starting the step each need it, and hashing costs more than the rest
 * of an approval's work. It depends on the run and on which step's output led here.
 */
export function commandFor(run: LiveRun, step: string, kind: StepKindInfo | undefined): Readonly<CommandSpec & { hash: string }> {
  const runsCommand = kind?.runsCommand === true;
  const previousOutput = runsCommand ? previousOutputOf(run, step) : undefined;
  const key = `${step}\0${runsCommand ? `>${previousOutput ?? ''}` : ''}`;
  const known = run.commands.get(key);
  if (known !== undefined) return known;
  const def = run.horde.steps[step]!;
  let spec: ApprovalCommand;
  if (runsCommand) {
    spec = resolveCommand(def, {
      horde: run.horde, input: run.input, workdir: run.workdir, runDir: run.runDir,
      ...(previousOutput === undefined ? {} : { previousOutput }),
      ...(run.project === undefined ? {} : { project: run.project }),
    });
  } else if (def.send !== undefined || def.call !== undefined) {
    // What the operator approves: through which adapter to whom and what it reads, or which tool with which arguments (filled as the step will fill them).
    const values = { input: run.input, date: new Date(run.createdAt).toISOString().slice(0, 10), runId: run.runId };
    const argv = def.send !== undefined
      ? ['kowalski-send', `adapter=${fillStepField(def.send.adapter, values)}`, `to=${fillStepField(def.send.to, values)}`, ...def.context.map((c) => `reads=${c}`)]
      : ['kowalski-mcp-call', `tool=${fillStepField(def.call!.tool, values)}`, `arguments=${typeof def.call!.arguments === 'string' ? fillStepField(def.call!.arguments, values) : JSON.stringify(def.call!.arguments)}`, `output=${def.output}`];
    spec = { argv, cwd: run.workdir, env: [] };
  } else {
    spec = { argv: ['kowalski-step', def.kind, step], cwd: run.workdir, env: [] };
  }
  const command = { ...spec, hash: hashCommand(spec, run.runDir) };
  run.commands.set(key, command);
  return command;
}

/** What the engine adds to a task beyond the run: the model settings, the test-only fetch allowance. */
export interface TaskExtras {
  model?: ModelTask;
  fetchAllow?: readonly string[];
}

export function buildStepTask(run: LiveRun, step: string, attempt: number, kind: StepKindInfo, extras: TaskExtras = {}): StepTask {
  const def = run.horde.steps[step]!;
  const task: StepTask = {
    runId: run.runId,
    step: def,
    attempt,
    horde: run.taskHorde,
    runDir: run.runDir,
    workdir: run.workdir,
    attemptDir: path.join(run.runDir, 'attempts', step, String(attempt)),
    input: run.input,
    createdAt: run.createdAt,
    stepOutputs: run.stepOutputs,
    token: crypto.randomUUID(),
    limits: DEFAULT_LIMITS,
  };
  if (run.foldersMade) task.foldersMade = true;
  if (extras.model !== undefined) task.model = extras.model;
  if (extras.fetchAllow !== undefined) task.fetchAllow = [...extras.fetchAllow];
  const previousOutput = previousOutputOf(run, step);
  if (previousOutput !== undefined) task.previousOutput = previousOutput;
  if (run.project !== undefined) task.project = run.project;
  if (kind.runsCommand) task.command = commandFor(run, step, kind);
  const review = reviewTaskOf(run, step);
  if (review !== undefined) task.review = review;
  return task;
}

/** A review step's approved artifact, and the operator's edit to put in place first (from the run's context). */
function reviewTaskOf(run: LiveRun, step: string): ReviewTask | undefined {
  const s = run.actor.context.steps[step];
  if (run.actor.context.policy[step]?.review !== true || s?.approvedHash === undefined) return undefined;
  const review: ReviewTask = { path: run.horde.steps[step]!.output, hash: s.approvedHash };
  if (s.edit !== undefined && s.edit.after === s.approvedHash) review.edit = { before: s.edit.before, staged: stagedEditPath(run.runDir, step, s.edit.after) };
  return review;
}
