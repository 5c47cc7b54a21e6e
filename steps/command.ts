/**
 * The exact command a verify or apply step runs: resolved from the step definition,
 * shown to the operator, and hashed so that an approval binds to what was shown.
 * Pure and deterministic: the same step of the same run gives the same spec and hash
 * on every loop (the attempt number only reaches the environment's values).
 */
import { createHash } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { KowalskiError } from '../core/index.js';
import type { HordeDef, StepDef } from '../core/index.js';
import { checkProjectCwd } from './project.js';
import type { ProjectFolder } from './project.js';
import type { CommandSpec, StepTask } from './protocol.js';

/** Variables passed through from the engine's environment when it has them; nothing else of it reaches a command. */
export const PASSTHROUGH_ENV = [
  'PATH', 'HOME', 'USER', 'LOGNAME', 'LANG', 'LC_ALL', 'LC_CTYPE', 'TZ', 'TERM', 'TMPDIR', 'SHELL',
] as const;

/** Variables set by kowalski for every command a step runs. */
export const STEP_ENV = [
  'KOWALSKI_RUN_ID', 'KOWALSKI_STEP', 'KOWALSKI_ATTEMPT', 'KOWALSKI_WORKDIR', 'KOWALSKI_STEP_TOKEN',
] as const;

/** The program name shown for an apply step: kowalski applies the diffs itself, in-process. */
export const APPLY_PROGRAM = 'kowalski-apply';

export interface CommandContext {
  horde: HordeDef;
  /** The run's form answers. */
  input: Record<string, string>;
  /** Absolute. */
  workdir: string;
  /** Absolute. */
  runDir: string;
  /** Workdir-relative output of the step that led here (apply reads its diffs from it). */
  previousOutput?: string;
  /** What `~/` means in `verify_cwd`; default `os.homedir()`. */
  home?: string;
  /** The run's project folder (steps/project.ts): commands run there and a relative `verify_cwd` is relative to it. */
  project?: ProjectFolder;
}

/** `'…'` quoting for POSIX sh: safe for any string. */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

function expand(template: string, step: StepDef, key: string, ctx: CommandContext, quote: (v: string) => string): string {
  return template.replace(PLACEHOLDER, (_whole, name: string) => {
    if (name === 'workdir') return quote(ctx.workdir);
    if (name === 'run_dir') return quote(ctx.runDir);
    if (name.startsWith('input.')) {
      const id = name.slice('input.'.length);
      const value = Object.hasOwn(ctx.input, id) ? ctx.input[id] : undefined;
      if (value !== undefined) return quote(value);
      if (ctx.horde.inputs.some((f) => f.id === id)) return quote('');
      throw new KowalskiError('KW_ERR_KEY_VALUE',
        `${key} uses {{input.${id}}}, but the run has no input \`${id}\` and the horde's form declares none`,
        { where: { file: step.file, key } });
    }
    throw new KowalskiError('KW_ERR_KEY_VALUE',
      `${key} uses the unknown placeholder {{${name}}} (known: {{input.<id>}}, {{workdir}}, {{run_dir}})`,
      { where: { file: step.file, key } });
  });
}

/** `verify_cwd` with placeholders expanded (raw, not quoted) and trimmed; '' when unset. */
export function expandedCwd(step: StepDef, ctx: CommandContext): string {
  return step.verifyCwd === undefined ? '' : expand(step.verifyCwd, step, 'verify_cwd', ctx, (v) => v).trim();
}

/**
 * The folder a command runs in: `verify_cwd` with placeholders expanded; default the
 * run's project folder, else the workdir; relative = relative to that folder; `~/` = the
 * home folder; absolute as written (as in 1.x).
 * For apply steps this is the project folder the diffs are applied to.
 */
export function resolveCwd(step: StepDef, ctx: CommandContext): string {
  const raw = expandedCwd(step, ctx);
  const base = ctx.project?.path ?? ctx.workdir;
  if (raw === '') return path.resolve(base);
  const home = ctx.home ?? os.homedir();
  if (raw === '~') return path.resolve(home);
  if (raw.startsWith('~/')) return path.resolve(home, raw.slice(2));
  return path.resolve(base, raw);
}

/** The command of a `verify` or `apply` step. Throws a coded error naming the step file and key when it cannot be built. */
export function resolveCommand(step: StepDef, ctx: CommandContext): CommandSpec {
  const env = [...PASSTHROUGH_ENV, ...STEP_ENV];
  if (step.kind === 'verify') {
    const command = step.verifyCommand;
    if (command === undefined || command.trim() === '') {
      throw new KowalskiError('KW_ERR_KEY_MISSING', `verify step \`${step.name}\` has no verify_command`,
        { where: { file: step.file, key: 'verify_command' } });
    }
    const expanded = expand(command, step, 'verify_command', ctx, shellQuote);
    return { argv: ['/bin/sh', '-c', expanded], cwd: resolveCwd(step, ctx), env };
  }
  if (step.kind === 'apply') {
    if (ctx.previousOutput === undefined) {
      throw new KowalskiError('KW_ERR_PATCH_NONE',
        `apply step \`${step.name}\` has no previous step whose output holds the diffs to apply`,
        { where: { file: step.file } });
    }
    const mode = step.applyMode ?? 'dry-run';
    return { argv: [APPLY_PROGRAM, '--mode', mode, '--from', ctx.previousOutput], cwd: resolveCwd(step, ctx), env };
  }
  throw new KowalskiError('KW_ERR_KEY_VALUE', `step \`${step.name}\` of kind \`${step.kind}\` runs no command`,
    { where: { file: step.file, key: 'kind' } });
}

/** sha256 (hex) of the canonical JSON `{argv, cwd, env}`: what an approval binds to. */
export function hashCommand(spec: CommandSpec, runDir?: string): string {
  // Paths inside the run's own directory are hashed as {{run_dir}}…, so an approval still
  // holds when the data folder is copied or moved elsewhere; what is shown stays absolute.
  const portable = (text: string): string => (runDir === undefined || runDir === '' ? text : text.split(runDir).join('{{run_dir}}'));
  const canonical = JSON.stringify({ argv: spec.argv.map(portable), cwd: portable(spec.cwd), env: spec.env });
  return createHash('sha256').update(canonical).digest('hex');
}

/** The command context of a task. */
export function commandContextOf(task: StepTask): CommandContext {
  const ctx: CommandContext = { horde: task.horde, input: task.input, workdir: task.workdir, runDir: task.runDir };
  if (task.previousOutput !== undefined) ctx.previousOutput = task.previousOutput;
  if (task.project !== undefined) ctx.project = task.project;
  return ctx;
}

/**
 * Recompute the step's command and check that it is the one the engine resolved (and
 * the operator approved). Anything else is refused with KW_ERR_APPROVAL_MISMATCH. With a
 * project folder, also that it exists and that a relative `verify_cwd` stays inside it.
 */
export function approvedCommand(task: StepTask): CommandSpec & { hash: string } {
  const ctx = commandContextOf(task);
  const spec = resolveCommand(task.step, ctx);
  const hash = hashCommand(spec, task.runDir);
  if (task.command === undefined) {
    throw new KowalskiError('KW_ERR_APPROVAL_MISMATCH',
      `step \`${task.step.name}\` was started without a resolved command; refusing to run ${JSON.stringify(spec.argv)}`,
      { where: { file: task.step.file } });
  }
  if (task.command.hash !== hash) {
    throw new KowalskiError('KW_ERR_APPROVAL_MISMATCH',
      `the command of step \`${task.step.name}\` is not the one approved (approved ${task.command.hash.slice(0, 12)}…, ` +
      `now ${hash.slice(0, 12)}…): ${JSON.stringify(spec.argv)} in ${spec.cwd}`,
      { where: { file: task.step.file } });
  }
  if (task.project !== undefined) checkProjectCwd(task.project, spec.cwd, expandedCwd(task.step, ctx), task.step.file);
  return { ...spec, hash };
}

/**
 * The environment values of a command: the passthrough names the engine has, plus the
 * step's identity. `source` is the engine's environment (default `process.env`).
 */
export function commandEnv(spec: CommandSpec, task: StepTask, source: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const own: Record<string, string> = {
    KOWALSKI_RUN_ID: task.runId,
    KOWALSKI_STEP: task.step.name,
    KOWALSKI_ATTEMPT: String(task.attempt),
    KOWALSKI_WORKDIR: task.workdir,
    KOWALSKI_STEP_TOKEN: task.token,
  };
  const env: Record<string, string> = {};
  for (const name of spec.env) {
    const value = Object.hasOwn(own, name) ? own[name] : source[name];
    if (value !== undefined) env[name] = value;
  }
  // The token is what finds leftovers after a crash: it is always set.
  env.KOWALSKI_STEP_TOKEN = task.token;
  return env;
}
