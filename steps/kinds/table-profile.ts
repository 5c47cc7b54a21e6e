/**
 * `table_profile`: asks the data tool (served over the run's `inputs/`) for every table
 * — or the tables the step names in `tables = [...]` — and writes what it answers: a
 * Markdown artifact with the exact table and column names (as SQL must spell them),
 * types and statistics, and the same as JSON beside it (`TableProfileFile`), so the
 * next step starts from the truth rather than from a model's guess.
 */
import { KowalskiError } from '../../core/index.js';
import type { ColumnProfile, DataValue, DescribeTableResult, ListTablesResult, TableProfileFile } from '../../agents/index.js';
import { inlineCode, plural, writeArtifact, writeWorkdirFile } from '../artifact.js';
import { jsonPathFor, markdownCell, resultsJson } from '../data-results.js';
import { stoppedError } from '../context.js';
import type { StepContext, StepResult, StepTask } from '../protocol.js';
import { structuredOf } from '../data-call.js';

/** The tables the step names (`tables = ["sales", …]`), or undefined for all. */
function namedTables(task: StepTask): string[] | undefined {
  const raw = task.step.extra.tables;
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw) || raw.some((t) => typeof t !== 'string' || t.trim() === '')) {
    throw new KowalskiError('KW_ERR_KEY_TYPE', `step \`${task.step.name}\`: tables must be an array of table names, e.g. tables = ["sales"]`,
      { where: { file: task.step.file, key: 'tables' } });
  }
  return raw as string[];
}

/** How SQL must spell a name: bare when it is a plain lower-case identifier, else double-quoted. */
export function sqlIdentifier(name: string): string {
  return /^[a-z_][a-z0-9_]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

/** A statistic as a table cell: means to 12 significant digits, long values cut to 40 characters. */
function cell(value: DataValue | number | null): string {
  const text = markdownCell(typeof value === 'number' && !Number.isInteger(value) ? Number(value.toPrecision(12)) : value);
  return text.length > 40 ? `${text.slice(0, 39)}…` : text;
}

function topValues(c: ColumnProfile): string {
  return c.top.slice(0, 3).map((t) => `${cell(t.value) || '(empty)'} (${t.count})`).join(', ');
}

function tableSection(d: DescribeTableResult): string[] {
  const t = d.table;
  const from = t.sheet === undefined ? inlineCode(t.source) : `${inlineCode(t.source)}, sheet ${inlineCode(t.sheet)}`;
  const lines = [
    `## ${sqlIdentifier(t.name)}`,
    '',
    `From ${from}: ${plural(t.rowCount, 'row')}, ${plural(t.columnCount, 'column')}.`,
    '',
    '| column | type | nulls | distinct | min | max | mean | most frequent |',
    '|---|---|--:|--:|---|---|--:|---|',
    ...d.columns.map((c) => `| ${inlineCode(sqlIdentifier(c.name))} | ${c.type} | ${c.nulls} | ${c.distinct} | ${cell(c.min)} | ${cell(c.max)} | ${cell(c.mean)} | ${topValues(c)} |`),
  ];
  if (d.notes.length > 0) lines.push('', ...d.notes.map((n) => `- ${n}`));
  lines.push('');
  return lines;
}

export function profileMarkdown(file: TableProfileFile): string {
  const lines = [
    '# Data profile',
    '',
    `${plural(file.tables.length, 'table')}. Names are written as SQL must spell them; quote a name in double quotes when it is shown quoted.`,
    '',
    ...file.tables.map((d) => `- ${inlineCode(sqlIdentifier(d.table.name))}: ${plural(d.table.rowCount, 'row')} from ${inlineCode(d.table.source)}${d.table.sheet === undefined ? '' : ` (sheet ${inlineCode(d.table.sheet)})`}`),
    '',
  ];
  if (file.skipped.length > 0) {
    lines.push('Files that could not be read:', '', ...file.skipped.map((s) => `- ${inlineCode(s.source)}: ${s.error}`), '');
  }
  for (const d of file.tables) lines.push(...tableSection(d));
  return lines.join('\n');
}

export default async function tableProfile(ctx: StepContext): Promise<StepResult> {
  const { task } = ctx;
  const wanted = namedTables(task);
  const listed = structuredOf<ListTablesResult>(await ctx.request({ op: 'call-tool', name: 'list_tables', args: {} }), 'list_tables');
  const names = listed.tables.map((t) => t.name);
  if (wanted !== undefined) {
    const unknown = wanted.filter((w) => !names.includes(w));
    if (unknown.length > 0) {
      throw new KowalskiError('KW_ERR_DATA_TABLE_UNKNOWN',
        `step \`${task.step.name}\` names ${unknown.map((u) => inlineCode(u)).join(', ')}, which the inputs do not hold; the tables are ${names.length === 0 ? '(none)' : names.map((n) => inlineCode(n)).join(', ')}`,
        { where: { file: task.step.file, key: 'tables' } });
    }
  } else if (names.length === 0) {
    const skipped = listed.skipped.map((s) => `\n- ${s.source}: ${s.error}`).join('');
    throw new KowalskiError('KW_ERR_DATA_NO_TABLES',
      `step \`${task.step.name}\` found no spreadsheet in the run's inputs (it reads .csv, .tsv, .parquet, .json, .ndjson and .xlsx files)${skipped === '' ? '' : `; these could not be read:${skipped}`}`);
  }
  const tables: DescribeTableResult[] = [];
  for (const name of wanted ?? names) {
    if (ctx.signal.aborted) throw stoppedError(ctx, 'describing every table');
    ctx.progress(`describing ${name}`);
    tables.push(structuredOf<DescribeTableResult>(await ctx.request({ op: 'call-tool', name: 'describe_table', args: { table: name } }), 'describe_table'));
  }
  const file: TableProfileFile = { version: 1, kind: 'table_profile', tables, skipped: listed.skipped };
  const artifact = writeArtifact(task, profileMarkdown(file));
  writeWorkdirFile(task, jsonPathFor(artifact), resultsJson(file));
  const rows = tables.reduce((n, d) => n + d.table.rowCount, 0);
  return {
    outcome: 'pass',
    artifact,
    summary: `${plural(tables.length, 'table')}, ${plural(rows, 'row')}${listed.skipped.length === 0 ? '' : `; ${plural(listed.skipped.length, 'file')} could not be read`}`,
  };
}
