/**
 * `xlsx_report`: turns the previous step's JSON results into a workbook at the step's
 * `output` (`.xlsx`). For a `sql_batch` file: an **Index** sheet (#, question, SQL, rows,
 * truncated, a link to the question's sheet), then one sheet per question with its result.
 * For a `table_profile` file: an Index of the tables, then one sheet per table with one
 * row per column and the loader's notes below. Header rows are bold and frozen; numbers
 * are Number cells, DATE and TIMESTAMP values Date cells (UTC, no timezone shift),
 * booleans Boolean cells, NULL empty; column widths follow the content (8–60). Index
 * links are real internal hyperlinks (`<hyperlink location="'Sheet'!A1">`, a cell whose
 * text is the sheet name), which every spreadsheet app follows. Written atomically, with
 * a copy kept per attempt like every artifact.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Blob } from 'node:buffer';
import type { Stream } from 'node:stream';
import writeXlsxFile from 'write-excel-file/node';
import type { CellObject, Feature, Sheet } from 'write-excel-file/node';
import { getSelfClosingTagMarkup, getOrderOfSiblings, insertElementMarkupAccordingToOrderOfSiblings } from 'write-excel-file/utility';
import { KowalskiError } from '../../core/index.js';
import type { DataValue, DescribeTableResult, SqlBatchFile, SqlBatchQuery, TableProfileFile } from '../../agents/index.js';
import { plural, resolveContextRef, writeArtifact } from '../artifact.js';
import { jsonPathFor, kindOfType, readResultsFile } from '../data-results.js';
import type { ResultsFile } from '../data-results.js';
import { resolveInside } from '../paths.js';
import { stoppedError } from '../context.js';
import type { StepContext, StepResult, StepTask } from '../protocol.js';

type XlsxContent = Stream | Buffer | Blob;
type Row = Array<CellObject | null>;

/** Excel's limits: a sheet name's length, a cell's text. */
const SHEET_NAME_MAX = 31;
const CELL_TEXT_MAX = 32_767;
/** Column width bounds, in characters. */
const WIDTH_MIN = 8;
const WIDTH_MAX = 60;
const DATE_FORMAT = 'yyyy-mm-dd';
const TIMESTAMP_FORMAT = 'yyyy-mm-dd hh:mm:ss';
/** Names Excel keeps for itself (compared case-insensitively). */
const RESERVED = new Set(['history']);
const LINK_STYLE = { textColor: '#0563C1', textDecoration: { underline: true } } as const;

// ---- sheet names ----

function trimQuotes(s: string): string {
  return s.replace(/^['\s]+|['\s]+$/g, '');
}

/** The longest prefix of `s` of at most `max` UTF-16 units that does not split a character. */
function cut(s: string, max: number): string {
  let out = '';
  for (const ch of s) {
    if (out.length + ch.length > max) break;
    out += ch;
  }
  return out;
}

/** `s` shortened to `max` UTF-16 units, at a word boundary when one is near, ending in `…`. */
function shorten(s: string, max: number): string {
  if (s.length <= max) return s;
  const head = cut(s, max - 1);
  const space = head.lastIndexOf(' ');
  const wordEnds = /\s/.test(s.charAt(head.length));
  return `${(wordEnds || space < max - 12 ? head : head.slice(0, space)).trimEnd()}…`;
}

/**
 * A sheet name Excel accepts, from any text: at most 31 characters (cut at a word, with
 * `…`), none of `[]:*?/\` (`[]` become `()`, `/\` become `-`, `:*?` are dropped),
 * not starting or ending with `'`, unique case-insensitively among `taken` (which it
 * joins) — a clash gets ` (2)`, ` (3)`…; `fallback` when nothing usable is left.
 */
export function sheetNameFor(raw: string, taken: Set<string>, fallback: string): string {
  let base = trimQuotes(raw.replace(/\p{Cc}/gu, ' ').replaceAll('[', '(').replaceAll(']', ')').replace(/[\\/]/g, '-').replace(/[:*?]/g, '').replace(/\s+/g, ' '));
  if (base === '') base = fallback;
  for (let n = 1; ; n++) {
    const suffix = n === 1 ? '' : ` (${n})`;
    const name = `${trimQuotes(shorten(base, SHEET_NAME_MAX - suffix.length)) || cut(fallback, SHEET_NAME_MAX - suffix.length)}${suffix}`;
    const key = name.toLowerCase();
    if (!taken.has(key) && !RESERVED.has(key)) {
      taken.add(key);
      return name;
    }
  }
}

// ---- cells ----

function validDate(y: number, m: number, d: number): boolean {
  const t = new Date(Date.UTC(y, m - 1, d));
  // Excel's serial dates start in 1900 (and count a 29 February 1900 that never was): earlier dates stay text.
  return t.getUTCFullYear() === y && t.getUTCMonth() === m - 1 && t.getUTCDate() === d && y <= 9999 && t.getTime() >= Date.UTC(1900, 2, 1);
}

/** `YYYY-MM-DD` → that day at 00:00 UTC, or undefined. */
export function parseDate(text: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text.trim());
  if (m === null) return undefined;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  return validDate(y, mo, d) ? new Date(Date.UTC(y, mo - 1, d)) : undefined;
}

/**
 * `YYYY-MM-DD HH:MM:SS[.ffffff]` → that wall time as UTC (milliseconds kept), or undefined.
 * An offset after it (a TIMESTAMPTZ as DuckDB prints it) is not applied: the cell shows
 * the time the results show.
 */
export function parseTimestamp(text: string): Date | undefined {
  const m = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\s*(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(text.trim());
  if (m === null) return undefined;
  const [y, mo, d, h, mi, s] = [1, 2, 3, 4, 5, 6].map((i) => Number(m[i]));
  if (y === undefined || mo === undefined || d === undefined || h === undefined || mi === undefined || s === undefined) return undefined;
  if (!validDate(y, mo, d) || h > 23 || mi > 59 || s > 59) return undefined;
  const ms = Math.floor(Number(`0.${m[7] ?? '0'}`) * 1000);
  return new Date(Date.UTC(y, mo - 1, d, h, mi, s, ms));
}

const DAY_MS = 86_400_000;
/** The serial number of 1970-01-01 in Excel's 1900 date system. */
const UNIX_EPOCH_SERIAL = 25_569;

/** The next larger double (x > 0). */
function nextUp(x: number): number {
  const f = new Float64Array([x]);
  const i = new BigInt64Array(f.buffer);
  i[0] = (i[0] ?? 0n) + 1n;
  return f[0] ?? x;
}

/**
 * The Excel serial number of a UTC instant, nudged up by a few ulps (well under a
 * microsecond) when needed so that readers which floor to milliseconds (read-excel-file,
 * the app's workbook view) get `11:00:00.000` back rather than `10:59:59.999`.
 */
export function excelSerial(date: Date): number {
  const ms = date.getTime();
  let serial = UNIX_EPOCH_SERIAL + ms / DAY_MS;
  for (let i = 0; i < 64 && Math.floor((serial - UNIX_EPOCH_SERIAL) * DAY_MS) < ms; i++) serial = nextUp(serial);
  return serial;
}

/** `DECIMAL(18,2)` → `#,##0.00`; other types keep the General format. */
function numberFormat(type: string): string | undefined {
  const m = /^(?:DECIMAL|NUMERIC)\s*\(\s*\d+\s*,\s*(\d+)\s*\)/i.exec(type.trim());
  const scale = m === null ? 0 : Number(m[1]);
  return scale > 0 && scale <= 6 ? `#,##0.${'0'.repeat(scale)}` : undefined;
}

function textCell(text: string, style: Partial<CellObject> = {}): CellObject {
  return { value: text.length > CELL_TEXT_MAX ? `${cut(text, CELL_TEXT_MAX - 1)}…` : text, type: String, ...style };
}

/** One value as a typed cell, by its JSON type and its column's DuckDB type. */
export function typedCell(value: DataValue, type: string): CellObject | null {
  if (value === null) return null;
  if (typeof value === 'number') {
    const format = numberFormat(type);
    return format === undefined ? { value, type: Number } : { value, type: Number, format };
  }
  if (typeof value === 'boolean') return { value, type: Boolean };
  const kind = kindOfType(type);
  const date = kind === 'date' ? parseDate(value) : kind === 'timestamp' ? parseTimestamp(value) : undefined;
  // A date cell is a serial number with a date format; written as such so its value reads back exactly.
  if (date !== undefined) return { value: excelSerial(date), type: Number, format: kind === 'date' ? DATE_FORMAT : TIMESTAMP_FORMAT };
  return textCell(value);
}

function header(names: string[]): Row {
  return names.map((n) => textCell(n, { fontWeight: 'bold' }));
}

function note(text: string): Row {
  return [textCell(text, { fontStyle: 'italic' })];
}

function cellWidth(c: CellObject | null | undefined): number {
  if (c === null || c === undefined) return 0;
  const v = c.value;
  if (c.format === TIMESTAMP_FORMAT) return 19;
  if (c.format === DATE_FORMAT) return 10;
  if (typeof v === 'number') return (c.format === undefined ? String(v) : v.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 6 })).length;
  if (typeof v === 'boolean') return 5;
  return Math.max(0, ...String(v ?? '').split('\n').map((l) => l.length));
}

/** Column widths sized to the longest value of each column (header included), 8–60 characters. */
export function columnWidths(rows: Row[], columns: number): Array<{ width: number }> {
  return Array.from({ length: columns }, (_, i) => {
    const longest = Math.max(0, ...rows.map((r) => cellWidth(r[i])));
    return { width: Math.min(WIDTH_MAX, Math.max(WIDTH_MIN, longest + 2)) };
  });
}

// ---- internal links ----

interface Link {
  /** The cell holding the link, e.g. `F2`. */
  ref: string;
  /** The sheet it opens. */
  sheet: string;
}

function cellRef(row: number, column: number): string {
  let letters = '';
  for (let c = column + 1; c > 0; c = Math.floor((c - 1) / 26)) letters = String.fromCharCode(65 + ((c - 1) % 26)) + letters;
  return `${letters}${row + 1}`;
}

/** A write-excel-file feature adding `<hyperlinks>` to the named sheets: links to another sheet's A1. */
function hyperlinks(bySheet: Map<string, Link[]>): Feature<XlsxContent> {
  return {
    files: {
      transform: {
        'xl/worksheets/sheet{id}.xml': {
          transform(xml, options) {
            const links = bySheet.get(options.sheet ?? '') ?? [];
            if (links.length === 0) return xml;
            const markup = `<hyperlinks>${links.map((l) => getSelfClosingTagMarkup('hyperlink', {
              ref: l.ref, location: `'${l.sheet.replaceAll("'", "''")}'!A1`, display: l.sheet,
            })).join('')}</hyperlinks>`;
            return insertElementMarkupAccordingToOrderOfSiblings(xml, markup, getOrderOfSiblings('xl/worksheets/sheet{id}.xml', 'worksheet') ?? [], 'worksheet');
          },
        },
      },
    },
  };
}

function linkCell(sheet: string): CellObject {
  return textCell(sheet, LINK_STYLE);
}

// ---- the two workbooks ----

interface Workbook {
  sheets: Array<Sheet<XlsxContent>>;
  links: Map<string, Link[]>;
  summary: string;
}

function sheetOf(name: string, data: Row[], columns: number): Sheet<XlsxContent> {
  return { sheet: name, data, columns: columnWidths(data, columns), stickyRowsCount: 1 };
}

function resultRows(q: SqlBatchQuery): Row[] {
  if (q.columns.length === 0) return [note('(the query returned no columns)')];
  const rows: Row[] = [header(q.columns.map((c) => c.name))];
  for (const r of q.rows) rows.push(q.columns.map((c, i) => typedCell(r[i] ?? null, c.type)));
  if (q.rows.length === 0) rows.push([], note('(no rows)'));
  if (q.truncated) rows.push([], note(`Truncated: the data tool returned only these ${plural(q.rowCount, 'row')}; the rest were not returned.`));
  return rows;
}

function batchWorkbook(file: SqlBatchFile): Workbook {
  const taken = new Set<string>(['index']);
  const names = file.queries.map((q) => sheetNameFor(q.question, taken, `Query ${q.index}`));
  const index: Row[] = [header(['#', 'Question', 'SQL', 'Rows', 'Truncated', 'Sheet'])];
  const links: Link[] = [];
  file.queries.forEach((q, i) => {
    const name = names[i] ?? `Query ${q.index}`;
    index.push([{ value: q.index, type: Number }, textCell(q.question), textCell(q.sql, { wrap: true }), { value: q.rowCount, type: Number }, { value: q.truncated, type: Boolean }, linkCell(name)]);
    links.push({ ref: cellRef(i + 1, 5), sheet: name });
  });
  const indexSheet = sheetOf('Index', index, 6);
  const sheets = [indexSheet, ...file.queries.map((q, i) => sheetOf(names[i] ?? `Query ${q.index}`, resultRows(q), q.columns.length || 1))];
  const rows = file.queries.reduce((n, q) => n + q.rows.length, 0);
  return { sheets, links: new Map([['Index', links]]), summary: `workbook with ${plural(file.queries.length, 'result sheet')}, ${plural(rows, 'row')}` };
}

function topText(values: DescribeTableResult['columns'][number]['top']): string {
  return values.map((t) => `${t.value === null ? '(null)' : String(t.value)} (${t.count})`).join(', ');
}

function tableRows(d: DescribeTableResult): Row[] {
  const rows: Row[] = [header(['Column', 'Type', 'Nulls', 'Distinct', 'Min', 'Max', 'Mean', 'Most frequent'])];
  for (const c of d.columns) {
    rows.push([
      textCell(c.name), textCell(c.type), { value: c.nulls, type: Number }, { value: c.distinct, type: Number },
      typedCell(c.min, c.type), typedCell(c.max, c.type), c.mean === null ? null : { value: c.mean, type: Number }, textCell(topText(c.top)),
    ]);
  }
  if (d.notes.length > 0) rows.push([], [textCell('Notes', { fontWeight: 'bold' })], ...d.notes.map((n) => [textCell(n)]));
  return rows;
}

function profileWorkbook(file: TableProfileFile): Workbook {
  const taken = new Set<string>(['index']);
  const names = file.tables.map((d, i) => sheetNameFor(d.table.name, taken, `Table ${i + 1}`));
  const index: Row[] = [header(['Table', 'Source', 'Source sheet', 'Rows', 'Columns', 'Profile sheet'])];
  const links: Link[] = [];
  file.tables.forEach((d, i) => {
    const name = names[i] ?? `Table ${i + 1}`;
    const t = d.table;
    index.push([textCell(t.name), textCell(t.source), t.sheet === undefined ? null : textCell(t.sheet), { value: t.rowCount, type: Number }, { value: t.columnCount, type: Number }, linkCell(name)]);
    links.push({ ref: cellRef(i + 1, 5), sheet: name });
  });
  if (file.skipped.length > 0) {
    index.push([], [textCell('Could not be read', { fontWeight: 'bold' })], ...file.skipped.map((s) => [textCell(s.source), textCell(s.error)]));
  }
  const sheets = [sheetOf('Index', index, 6), ...file.tables.map((d, i) => sheetOf(names[i] ?? `Table ${i + 1}`, tableRows(d), 8))];
  const columns = file.tables.reduce((n, d) => n + d.columns.length, 0);
  return { sheets, links: new Map([['Index', links]]), summary: `workbook with ${plural(file.tables.length, 'table sheet')}, ${plural(columns, 'column')} profiled` };
}

/** The workbook for a results file, as bytes. */
export async function workbookFor(file: ResultsFile): Promise<{ bytes: Buffer; summary: string }> {
  const book = file.kind === 'sql_batch' ? batchWorkbook(file) : profileWorkbook(file);
  const bytes = await writeXlsxFile(book.sheets, { features: [hyperlinks(book.links)] }).toBuffer();
  return { bytes, summary: book.summary };
}

// ---- the step ----

/** The results to read: beside the first context path that has them (when the step names any), else beside the previous step's artifact. */
function inputFile(task: StepTask): { abs: string; rel: string } {
  const where = { file: task.step.file, key: 'context_paths' };
  if (task.step.context.length === 0 && task.previousOutput !== undefined) {
    const rel = jsonPathFor(task.previousOutput);
    return { rel, abs: resolveInside(task.workdir, rel, 'KW_ERR_PATH_ESCAPES', 'the results file', where) };
  }
  for (const ref of task.step.context) {
    let artifact: string;
    try {
      artifact = resolveContextRef(task, ref);
    } catch (err) {
      if (err instanceof KowalskiError && err.code === 'KW_ERR_CONTEXT_MISSING') continue;
      throw err;
    }
    const rel = jsonPathFor(path.relative(task.workdir, artifact).split(path.sep).join('/'));
    const abs = path.join(task.workdir, rel);
    if (fs.existsSync(abs)) return { rel, abs };
  }
  throw new KowalskiError('KW_ERR_REPORT_INPUT',
    `step \`${task.step.name}\` (xlsx_report) has no results to read: no context path has a results .json beside it, and no step ran before it that wrote one`, { where });
}

export default async function xlsxReport(ctx: StepContext): Promise<StepResult> {
  const { task } = ctx;
  if (!/\.xlsx$/i.test(task.step.output)) {
    throw new KowalskiError('KW_ERR_KEY_VALUE', `step \`${task.step.name}\` (xlsx_report): output ${task.step.output} must end in .xlsx`,
      { where: { file: task.step.file, key: 'output' } });
  }
  const input = inputFile(task);
  const file = readResultsFile(input.abs, input.rel);
  ctx.progress(`writing ${task.step.output} from ${input.rel}`);
  const { bytes, summary } = await workbookFor(file);
  if (ctx.signal.aborted) throw stoppedError(ctx, 'writing the workbook');
  return { outcome: 'pass', artifact: writeArtifact(task, bytes), summary };
}
