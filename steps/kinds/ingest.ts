/**
 * `ingest`: collects the run's input. Form answers go into the artifact (a Markdown
 * list) and `input.json`; `path`/`file` inputs are copied into `inputs/<id>/` by a
 * bounded walk; URLs are recorded, not fetched (that arrives with the web tools).
 */
import os from 'node:os';
import path from 'node:path';
import { KowalskiError } from '../../core/index.js';
import type { InputField } from '../../core/index.js';
import { inlineCode, plural, writeArtifact, writeWorkdirFile } from '../artifact.js';
import { copyIngest, planIngest } from '../ingest-walk.js';
import type { IngestBudget, IngestPlan } from '../ingest-walk.js';
import { resolveInside } from '../paths.js';
import type { StepContext, StepResult, StepTask } from '../protocol.js';

const URL_NOTE = 'recorded, not fetched (URL fetching arrives with the web tools)';
/** Files listed by name per input in the artifact; the rest are counted. */
const LISTED_FILES = 100;

interface Collected {
  id: string;
  plan: IngestPlan;
  /** Workdir-relative folder it was copied to. */
  dest: string;
  copiedBytes: number;
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${bytes} bytes (${value.toFixed(1)} ${units[unit] ?? 'GiB'})`;
}

/** The answers in form order, then any extra keys (what a trigger put in), sorted. */
function answerIds(task: StepTask): string[] {
  const declared = task.horde.inputs.map((f) => f.id).filter((id) => Object.hasOwn(task.input, id));
  const extra = Object.keys(task.input).filter((id) => !task.horde.inputs.some((f) => f.id === id)).sort();
  return [...declared, ...extra];
}

function sourcePath(task: StepTask, id: string, value: string): string {
  const raw = value.trim();
  if (raw === '~' || raw.startsWith('~/')) return path.join(os.homedir(), raw.slice(2));
  if (path.isAbsolute(raw)) return path.normalize(raw);
  throw new KowalskiError('KW_ERR_INPUT_INVALID', `input \`${id}\`: the path ${JSON.stringify(raw)} must be absolute or start with ~/`,
    { where: { file: task.step.file, key: `inputs.${id}` } });
}

function destFolder(task: StepTask, id: string): string {
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(id)) {
    throw new KowalskiError('KW_ERR_INPUT_INVALID', `input id ${JSON.stringify(id)} cannot name a folder under inputs/`,
      { where: { file: task.step.file, key: `inputs.${id}` } });
  }
  const rel = `inputs/${id}`;
  resolveInside(task.workdir, rel, 'KW_ERR_PATH_ESCAPES', 'the ingest folder', { file: task.step.file });
  return rel;
}

function answerLine(id: string, field: InputField | undefined, value: string, collected: Collected | undefined): string {
  const type = field?.type ?? 'text';
  const label = field !== undefined && field.label !== id ? ` — ${field.label}` : '';
  const head = `- **${id}** (${type}${label})`;
  if (collected !== undefined) {
    const { plan } = collected;
    const skipped = plan.skipped.length > 0 ? `, ${plan.skipped.length} skipped` : '';
    return `${head}: ${inlineCode(value.trim())} → ${inlineCode(`${collected.dest}/`)} — ${plural(plan.files.length, 'file')}, ${formatBytes(collected.copiedBytes)}${skipped}`;
  }
  if (value.trim() === '') return `${head}: _(empty)_`;
  if (type === 'url') return `${head}: <${value.trim()}> — ${URL_NOTE}`;
  if (value.includes('\n')) return `${head}:\n\n${value.split(/\r?\n/).map((l) => `    ${l}`).join('\n')}\n`;
  return `${head}: ${value}`;
}

function collectedSection(c: Collected): string {
  const lines = [`### ${c.id}: ${inlineCode(c.plan.root)}`, ''];
  lines.push(`${plural(c.plan.files.length, 'file')}, ${plural(c.plan.folders.length, 'folder')}, ${formatBytes(c.copiedBytes)} copied to ${inlineCode(`${c.dest}/`)}.`, '');
  for (const file of c.plan.files.slice(0, LISTED_FILES)) lines.push(`- ${inlineCode(file.rel)} (${file.size} bytes)`);
  if (c.plan.files.length > LISTED_FILES) lines.push(`- … and ${c.plan.files.length - LISTED_FILES} more files`);
  if (c.plan.skipped.length > 0) {
    lines.push('', 'Skipped:');
    for (const s of c.plan.skipped.slice(0, LISTED_FILES)) lines.push(`- ${inlineCode(s.rel)}: ${s.why}`);
    if (c.plan.skipped.length > LISTED_FILES) lines.push(`- … and ${c.plan.skipped.length - LISTED_FILES} more`);
  }
  return lines.join('\n');
}

export default async function ingest(ctx: StepContext): Promise<StepResult> {
  const { task } = ctx;
  const fields = new Map(task.horde.inputs.map((f) => [f.id, f]));
  const ids = answerIds(task);
  const { limits } = task;
  const budget: IngestBudget = { files: limits.ingestFiles, bytes: limits.ingestBytes, depth: limits.ingestDepth, limits };

  // Plan every path first: a limit anywhere fails the step before anything is copied.
  const plans: Array<{ id: string; plan: IngestPlan; dest: string }> = [];
  for (const id of ids) {
    const type = fields.get(id)?.type;
    const value = task.input[id] ?? '';
    if ((type === 'path' || type === 'file') && value.trim() !== '') {
      const dest = destFolder(task, id);
      ctx.progress(`walking ${value.trim()}`);
      plans.push({ id, dest, plan: await planIngest(id, sourcePath(task, id, value), budget, ctx.signal) });
    }
  }
  const collected = new Map<string, Collected>();
  for (const { id, plan, dest } of plans) {
    ctx.progress(`copying ${plan.files.length} files of ${id}`);
    const copiedBytes = await copyIngest(id, plan, path.join(task.workdir, dest), budget, ctx.signal);
    collected.set(id, { id, plan, dest, copiedBytes });
  }
  writeWorkdirFile(task, 'input.json', `${JSON.stringify(task.input, null, 2)}\n`);

  const files = [...collected.values()].reduce((n, c) => n + c.plan.files.length, 0);
  const bytes = [...collected.values()].reduce((n, c) => n + c.copiedBytes, 0);
  const urls = ids.filter((id) => fields.get(id)?.type === 'url' && (task.input[id] ?? '').trim() !== '');
  const parts = [
    `# Input: ${task.horde.displayName}`,
    '',
    '## Answers',
    '',
    ids.length === 0 ? '_(no answers)_' : ids.map((id) => answerLine(id, fields.get(id), task.input[id] ?? '', collected.get(id))).join('\n'),
    '',
    '## Collected',
    '',
    `${plural(collected.size, 'path')}: ${plural(files, 'file')}, ${formatBytes(bytes)}; ${plural(urls.length, 'URL')} recorded. The answers are also in ${inlineCode('input.json')}.`,
  ];
  for (const c of collected.values()) parts.push('', collectedSection(c));
  if (urls.length > 0) parts.push('', '### URLs', '', ...urls.map((id) => `- **${id}**: <${(task.input[id] ?? '').trim()}> — ${URL_NOTE}`));
  const artifact = writeArtifact(task, `${parts.join('\n')}\n`);
  const summary = `${plural(ids.length, 'answer')}, ${plural(files, 'file')} (${bytes} bytes)${urls.length > 0 ? `, ${plural(urls.length, 'URL')} recorded` : ''}`;
  return { outcome: 'pass', artifact, summary };
}
