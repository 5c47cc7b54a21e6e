/**
 * `apply`: writes the changes proposed as fenced diff blocks in the previous step's
 * artifact into the project folder (the step's `verify_cwd`, default the run's project
 * folder, else the workdir).
 * `dry-run` (the default) only checks that every hunk applies; `execute` computes every
 * file first and then writes them, so a conflict changes nothing.
 */
import fs from 'node:fs';
import { KowalskiError, toPlainError } from '../../core/index.js';
import { inlineCode, plural, readContext, writeArtifact } from '../artifact.js';
import { approvedCommand } from '../command.js';
import { extractDiffBlocks, parseDiffBlocks, planPatches, writePlan } from '../patch.js';
import type { Conflict, FileChange, PatchPlan } from '../patch.js';
import type { StepContext, StepResult } from '../protocol.js';

function changeLine(change: FileChange, executed: boolean): string {
  const verb = { create: ['created', 'would be created'], modify: ['modified', 'would be modified'], delete: ['deleted', 'would be deleted'] }[change.action];
  return `- ${inlineCode(change.path)} — ${executed ? verb[0] : verb[1]}: ${plural(change.hunks, 'hunk')}, +${change.added} −${change.removed} lines`;
}

function conflictLine(c: Conflict): string {
  const hunk = c.hunk === undefined ? '' : ` hunk ${c.hunk}${c.header === undefined ? '' : ` (${inlineCode(c.header)})`}`;
  return `- ${inlineCode(c.path)} (diff block ${c.block}${hunk}): ${c.reason}`;
}

function report(title: string, source: string, project: string, mode: string, plan: PatchPlan, executed: boolean): string {
  const lines = [
    `# Apply: ${title}`,
    '',
    `- mode: ${mode}`,
    `- diffs from: ${inlineCode(source)}`,
    `- project folder: ${inlineCode(project)}`,
    '',
  ];
  if (plan.conflicts.length > 0) {
    lines.push(`**CONFLICT** — ${plural(plan.conflicts.length, 'conflict')}; nothing was written.`, '', '## Conflicts', '', ...plan.conflicts.map(conflictLine), '');
    lines.push('## Changes that would apply', '', ...(plan.changes.length === 0 ? ['_(none)_'] : plan.changes.map((c) => changeLine(c, false))));
  } else {
    const files = plural(plan.changes.length, 'file');
    lines.push(executed ? `**APPLIED** — ${files} changed.` : `**OK** — every hunk applies; ${files} would change (dry run: nothing was written).`);
    lines.push('', '## Files', '', ...plan.changes.map((c) => changeLine(c, executed)));
  }
  return `${lines.join('\n')}\n`;
}

export default async function apply(ctx: StepContext): Promise<StepResult> {
  const { task } = ctx;
  const spec = approvedCommand(task);
  const mode = task.step.applyMode ?? 'dry-run';
  const project = spec.cwd;
  let isDir = false;
  try {
    isDir = fs.statSync(project).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) {
    throw new KowalskiError('KW_ERR_KEY_VALUE', `apply step \`${task.step.name}\`: the project folder ${project} does not exist`,
      { where: { file: task.step.file, key: 'verify_cwd' } });
  }
  const source = readContext(task, '@artifact@');
  const blocks = extractDiffBlocks(source.text);
  if (blocks.length === 0) {
    throw new KowalskiError('KW_ERR_PATCH_NONE', `${task.previousOutput ?? source.path} holds no fenced \`\`\`diff or \`\`\`patch block to apply`,
      { where: { file: task.previousOutput ?? source.path } });
  }
  const patches = parseDiffBlocks(blocks, project, task.previousOutput ?? source.path);
  if (patches.length === 0) {
    throw new KowalskiError('KW_ERR_PATCH_NONE', `the diff blocks of ${task.previousOutput ?? source.path} change no file`,
      { where: { file: task.previousOutput ?? source.path } });
  }
  ctx.progress(`checking ${patches.length} file diffs against ${project}`);
  const plan = planPatches(project, patches);
  if (ctx.signal.aborted) throw new KowalskiError('KW_ERR_STEP_CANCELLED', 'the apply step was stopped before writing');
  const execute = mode === 'execute' && plan.conflicts.length === 0;
  if (execute) writePlan(project, plan);
  const artifact = writeArtifact(task, report(task.step.displayName, task.previousOutput ?? source.path, project, mode, plan, execute));
  if (plan.conflicts.length > 0) {
    const first = plan.conflicts[0];
    const message = `${plural(plan.conflicts.length, 'conflict')}; nothing was written (first: ${first?.path ?? '?'}: ${first?.reason ?? ''})`;
    const error = toPlainError(new KowalskiError('KW_ERR_PATCH_CONFLICT', message, { where: { file: first?.path ?? project } }));
    delete error.stack;
    return { outcome: 'fail', artifact, error, summary: message };
  }
  const files = plural(plan.changes.length, 'file');
  const summary = execute ? `applied: ${files} changed` : `dry run: ${files} would change`;
  return { outcome: 'pass', artifact, summary };
}
