/**
 * `ingest`: collects the run's input. Form answers go into the artifact (a Markdown
 * list) and `input.json`; `path`/`file` inputs are copied into `inputs/<id>/` by a
 * bounded walk; `url` inputs are fetched through the web tools' SSRF-safe fetchPage
 * (public addresses only, size and time limits) into `inputs/<id>.md` as Markdown. A
 * `path`/`file` input written `vault:<note>` names a vault note instead: its one Markdown
 * table is written to `inputs/<id>/<note's name>.csv` (steps/ingest-note.ts).
 */
import path from 'node:path';
import { fetchPage } from '../../agents/net/index.js';
import { expandHome } from '../../agents/tools/file-root.js';
import type { FetchedPage } from '../../agents/index.js';
import { KowalskiError, formatBytes, vaultNoteOf } from '../../core/index.js';
import type { InputField } from '../../core/index.js';
import { inlineCode, plural, writeArtifact, writeWorkdirFile } from '../artifact.js';
import { readNoteTable } from '../ingest-note.js';
import type { NoteTable } from '../ingest-note.js';
import { copyIngest, planIngest } from '../ingest-walk.js';
import type { IngestBudget, IngestPlan } from '../ingest-walk.js';
import { resolveInside } from '../paths.js';
import type { StepContext, StepResult, StepTask } from '../protocol.js';

/** Files listed by name per input in the artifact; the rest are counted. */
const LISTED_FILES = 100;

interface Collected {
  id: string;
  plan: IngestPlan;
  /** Workdir-relative folder it was copied to. */
  dest: string;
  copiedBytes: number;
}

interface Fetched {
  id: string;
  /** The URL as the input gave it. */
  source: string;
  page: FetchedPage;
  /** Workdir-relative file the page was written to. */
  dest: string;
}

/** The answers in form order, then any extra keys (what a trigger put in), sorted. */
function answerIds(task: StepTask): string[] {
  const declared = task.horde.inputs.map((f) => f.id).filter((id) => Object.hasOwn(task.input, id));
  const extra = Object.keys(task.input).filter((id) => !task.horde.inputs.some((f) => f.id === id)).sort();
  return [...declared, ...extra];
}

function sourcePath(task: StepTask, id: string, value: string): string {
  const raw = value.trim();
  if (raw === '~' || raw.startsWith('~/')) return expandHome(raw);
  if (path.isAbsolute(raw)) return path.normalize(raw);
  throw new KowalskiError('KW_ERR_INPUT_INVALID', `input \`${id}\`: the path ${JSON.stringify(raw)} must be absolute or start with ~/`,
    { where: { file: task.step.file, key: `inputs.${id}` } });
}

/** `inputs/<id><suffix>`: a folder for a path input, `.md` for a URL's page. */
function destPath(task: StepTask, id: string, suffix: '' | '.md'): string {
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(id)) {
    throw new KowalskiError('KW_ERR_INPUT_INVALID', `input id ${JSON.stringify(id)} cannot name a file or folder under inputs/`,
      { where: { file: task.step.file, key: `inputs.${id}` } });
  }
  const rel = `inputs/${id}${suffix}`;
  resolveInside(task.workdir, rel, 'KW_ERR_PATH_ESCAPES', 'the ingest folder', { file: task.step.file });
  return rel;
}

async function fetchInput(ctx: StepContext, id: string, source: string): Promise<Fetched> {
  const { task } = ctx;
  const dest = destPath(task, id, '.md');
  ctx.progress(`fetching ${source}`);
  try {
    return { id, source, dest, page: await fetchPage(source, { testOnlyAllow: task.fetchAllow }, ctx.signal) };
  } catch (err) {
    if (ctx.signal.aborted || !(err instanceof KowalskiError)) throw err;
    throw new KowalskiError(err.code, `input \`${id}\` (${source}): ${err.message}`,
      { cause: err, where: { file: task.step.file, key: `inputs.${id}` } });
  }
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

/** The page as written to `inputs/<id>.md`: where it came from first, then its Markdown. */
function pageFile(f: Fetched): string {
  const head = [`Source: <${f.source}>`];
  if (f.page.redirects.length > 0) head.push(`Final URL: <${f.page.url}>`);
  if (f.page.title !== '') head.push(`Title: ${oneLine(f.page.title)}`);
  return `${head.join('  \n')}\n\n---\n\n${f.page.markdown.trimEnd()}\n`;
}

function fetchedNote(f: Fetched): string {
  const title = f.page.title === '' ? '' : `"${oneLine(f.page.title)}", `;
  return `→ ${inlineCode(f.dest)} — ${title}${f.page.contentType}, ${formatBytes(f.page.bytes)}`;
}

function noteLine(n: NoteTable): string {
  return `→ ${inlineCode(n.dest)} — the table at line ${n.table.line} of the vault note ${inlineCode(n.note)}, ${plural(n.table.rows.length, 'row')} of ${plural(n.table.header.length, 'column')}`;
}

function answerLine(id: string, field: InputField | undefined, value: string, collected: Collected | undefined, fetched: Fetched | undefined, note: NoteTable | undefined): string {
  const type = field?.type ?? 'text';
  const label = field !== undefined && field.label !== id ? ` — ${field.label}` : '';
  const head = `- **${id}** (${type}${label})`;
  if (collected !== undefined) {
    const { plan } = collected;
    const skipped = plan.skipped.length > 0 ? `, ${plan.skipped.length} skipped` : '';
    return `${head}: ${inlineCode(value.trim())} → ${inlineCode(`${collected.dest}/`)} — ${plural(plan.files.length, 'file')}, ${formatBytes(collected.copiedBytes)}${skipped}`;
  }
  if (value.trim() === '') return `${head}: _(empty)_`;
  if (note !== undefined) return `${head}: ${inlineCode(value.trim())} ${noteLine(note)}`;
  if (fetched !== undefined) return `${head}: <${fetched.source}> ${fetchedNote(fetched)}`;
  if (value.includes('\n')) return `${head}:\n\n${value.split(/\r?\n/).map((l) => `    ${l}`).join('\n')}\n`;
  return `${head}: ${value}`;
}

function urlLine(f: Fetched): string {
  const via = f.page.redirects.length === 0 ? '' : `, after ${plural(f.page.redirects.length, 'redirect')} to <${f.page.url}>`;
  return `- **${f.id}**: <${f.source}> ${fetchedNote(f)} (HTTP ${f.page.status}${via})`;
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
  const notes = new Map<string, NoteTable>();
  for (const id of ids) {
    const type = fields.get(id)?.type;
    const value = task.input[id] ?? '';
    const note = vaultNoteOf(value);
    if ((type === 'path' || type === 'file') && note !== undefined) {
      notes.set(id, await readNoteTable(ctx, id, note, destPath(task, id, '')));
    } else if ((type === 'path' || type === 'file') && value.trim() !== '') {
      const dest = destPath(task, id, '');
      ctx.progress(`walking ${value.trim()}`);
      plans.push({ id, dest, plan: await planIngest(id, sourcePath(task, id, value), budget, ctx.signal) });
    }
  }
  // Fetched before anything is copied, so a refused URL leaves the workdir untouched too.
  const fetched = new Map<string, Fetched>();
  for (const id of ids) {
    const value = (task.input[id] ?? '').trim();
    if (fields.get(id)?.type === 'url' && value !== '') fetched.set(id, await fetchInput(ctx, id, value));
  }
  const collected = new Map<string, Collected>();
  for (const { id, plan, dest } of plans) {
    ctx.progress(`copying ${plan.files.length} files of ${id}`);
    const copiedBytes = await copyIngest(id, plan, path.join(task.workdir, dest), budget, ctx.signal);
    collected.set(id, { id, plan, dest, copiedBytes });
  }
  for (const f of fetched.values()) writeWorkdirFile(task, f.dest, pageFile(f));
  for (const n of notes.values()) writeWorkdirFile(task, n.dest, n.csv);
  writeWorkdirFile(task, 'input.json', `${JSON.stringify(task.input, null, 2)}\n`);

  const files = [...collected.values()].reduce((n, c) => n + c.plan.files.length, 0);
  const bytes = [...collected.values()].reduce((n, c) => n + c.copiedBytes, 0);
  const parts = [
    `# Input: ${task.horde.displayName}`,
    '',
    '## Answers',
    '',
    ids.length === 0 ? '_(no answers)_' : ids.map((id) => answerLine(id, fields.get(id), task.input[id] ?? '', collected.get(id), fetched.get(id), notes.get(id))).join('\n'),
    '',
    '## Collected',
    '',
    `${plural(collected.size, 'path')}: ${plural(files, 'file')}, ${formatBytes(bytes)}; ${plural(fetched.size, 'URL')} fetched${notes.size > 0 ? `; ${plural(notes.size, 'vault note')} read` : ''}. The answers are also in ${inlineCode('input.json')}.`,
  ];
  for (const c of collected.values()) parts.push('', collectedSection(c));
  if (fetched.size > 0) parts.push('', '### URLs', '', ...[...fetched.values()].map(urlLine));
  const artifact = writeArtifact(task, `${parts.join('\n')}\n`);
  const summary = `${plural(ids.length, 'answer')}, ${plural(files, 'file')} (${bytes} bytes)${fetched.size > 0 ? `, ${plural(fetched.size, 'URL')} fetched` : ''}${notes.size > 0 ? `, ${plural(notes.size, 'vault note')} read` : ''}`;
  return { outcome: 'pass', artifact, summary };
}
