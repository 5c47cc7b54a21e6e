/**
 * Types for text columns, decided over the whole column in SQL (one scan, fast on a
 * million rows): a VARCHAR column whose every non-empty value is a number (decimal
 * commas, thousands separators), a date or a timestamp becomes BIGINT, DECIMAL(18,s),
 * DOUBLE, DATE or TIMESTAMP; any value that does not fit leaves it VARCHAR. A DOUBLE
 * column whose values all have at most 6 decimals becomes DECIMAL(18,s), so sums of
 * money are exact. Each conversion is a note.
 *
 * Dates `dd/mm/yyyy` and `mm/dd/yyyy` are told apart only when some day is above 12;
 * when both readings work, the column stays text (with a note). A number with leading
 * zeros (`007`, a code) keeps a column text.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DataColumn } from '../data-types.js';
import { MAX_SCALE } from './infer-cells.js';
import { ident, literal, literalList } from './sql.js';

export interface TextTypingOptions {
  /**
   * The CSV delimiter (undefined for other sources). Decimal commas are read only when it
   * is not `,`, and then before dots: `1.500` in a `;` file is one thousand five hundred.
   */
  delimiter?: string;
  /** Also turn DOUBLE columns with few decimals into DECIMAL (default false). */
  doubles?: boolean;
}

export interface Typed {
  columns: DataColumn[];
  notes: string[];
}

/** How many leading rows the first, cheap pass looks at to rule kinds out. */
const SAMPLE_ROWS = 2000;
const WIDTH = 18;

type NumberKind = 'integer' | 'decimal' | 'decimal_comma' | 'thousands_us' | 'thousands_eu';
type DateKind = 'date_iso' | 'date_dots' | 'date_slashes' | 'ts_iso' | 'ts_dots' | 'ts_slashes';
type Kind = NumberKind | DateKind;

const INT = '[+-]?(0|[1-9][0-9]*)';
const PATTERNS: Record<Kind, string> = {
  integer: INT,
  decimal: `${INT}(\\.[0-9]+)?`,
  decimal_comma: `${INT}(,[0-9]+)?`,
  thousands_us: `[+-]?([1-9][0-9]{0,2}(,[0-9]{3})+|0|[1-9][0-9]*)(\\.[0-9]+)?`,
  thousands_eu: `[+-]?([1-9][0-9]{0,2}(\\.[0-9]{3})+|0|[1-9][0-9]*)(,[0-9]+)?`,
  date_iso: '[0-9]{4}-[0-9]{2}-[0-9]{2}',
  date_dots: '[0-9]{1,2}\\.[0-9]{1,2}\\.[0-9]{4}',
  date_slashes: '[0-9]{1,2}/[0-9]{1,2}/[0-9]{4}',
  ts_iso: '[0-9]{4}-[0-9]{2}-[0-9]{2}[ T][0-9]{2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{1,6})?)?',
  ts_dots: '[0-9]{1,2}\\.[0-9]{1,2}\\.[0-9]{4} [0-9]{1,2}:[0-9]{2}(:[0-9]{2})?',
  ts_slashes: '[0-9]{1,2}/[0-9]{1,2}/[0-9]{4} [0-9]{1,2}:[0-9]{2}(:[0-9]{2})?',
};
const DATE_KINDS: readonly DateKind[] = ['date_iso', 'date_dots', 'date_slashes', 'ts_iso', 'ts_dots', 'ts_slashes'];
/** The decimal separator of each number kind, for its scale. */
const DECIMAL_SEP: Record<NumberKind, '.' | ','> = { integer: '.', decimal: '.', decimal_comma: ',', thousands_us: '.', thousands_eu: ',' };
const FORMATS: Record<'date_dots' | 'ts_dots', string[]> = {
  date_dots: ['%d.%m.%Y'],
  ts_dots: ['%d.%m.%Y %H:%M:%S', '%d.%m.%Y %H:%M'],
};
const SLASH_FORMATS = {
  date_slashes: { dm: ['%d/%m/%Y'], md: ['%m/%d/%Y'] },
  ts_slashes: { dm: ['%d/%m/%Y %H:%M:%S', '%d/%m/%Y %H:%M'], md: ['%m/%d/%Y %H:%M:%S', '%m/%d/%Y %H:%M'] },
};

function kindOrder(delimiter: string | undefined): Kind[] {
  const numbers: NumberKind[] = delimiter !== undefined && delimiter !== ','
    ? ['integer', 'decimal_comma', 'thousands_eu', 'decimal', 'thousands_us']
    : ['integer', 'decimal', 'thousands_us', 'decimal_comma', 'thousands_eu'];
  return [...numbers, ...DATE_KINDS];
}

const compiled = new Map<Kind, RegExp>();
function matches(kind: Kind, value: string): boolean {
  let re = compiled.get(kind);
  if (re === undefined) {
    re = new RegExp(`^(?:${PATTERNS[kind]})$`);
    compiled.set(kind, re);
  }
  return re.test(value);
}

/** `nullif(trim(col), '')`: the value a text cell is judged by. */
function valueOf(column: string): string {
  return `nullif(trim(${ident(column)}), '')`;
}

function isNumberKind(kind: Kind): kind is NumberKind {
  return kind in DECIMAL_SEP;
}

interface Check {
  column: string;
  kind: Kind;
  /** Aggregates, by alias. */
  parts: Record<string, string>;
}

function checksFor(column: string, kind: Kind, i: number): Check {
  const v = valueOf(column);
  const re = literal(PATTERNS[kind]);
  const bad = (extra = ''): string => `count(*) FILTER (WHERE ${v} IS NOT NULL AND NOT (coalesce(regexp_full_match(${v}, ${re}), false)${extra}))`;
  const parts: Record<string, string> = {};
  if (isNumberKind(kind)) {
    const sep = DECIMAL_SEP[kind] === '.' ? '\\.' : ',';
    parts[`bad_${i}`] = bad();
    parts[`scale_${i}`] = `max(length(regexp_extract(${v}, ${literal(`${sep}([0-9]+)$`)}, 1)))`;
    parts[`digits_${i}`] = `max(length(regexp_replace(${v}, '[^0-9]', '', 'g')))`;
  } else if (kind === 'date_slashes' || kind === 'ts_slashes') {
    const f = SLASH_FORMATS[kind];
    parts[`bad_${i}`] = bad(` AND try_strptime(${v}, ${literalList(f.dm)}) IS NOT NULL`);
    parts[`badmd_${i}`] = bad(` AND try_strptime(${v}, ${literalList(f.md)}) IS NOT NULL`);
  } else if (kind === 'date_dots' || kind === 'ts_dots') {
    parts[`bad_${i}`] = bad(` AND try_strptime(${v}, ${literalList(FORMATS[kind])}) IS NOT NULL`);
  } else {
    parts[`bad_${i}`] = bad(` AND TRY_CAST(${v} AS ${kind === 'date_iso' ? 'DATE' : 'TIMESTAMP'}) IS NOT NULL`);
  }
  return { column, kind, parts };
}

interface Decision {
  column: string;
  type: string;
  expr: string;
  note: string;
}

function numberDecision(column: string, kind: NumberKind, scale: number, digits: number, example: string | undefined): Decision | null {
  const v = valueOf(column);
  const intDigits = digits - scale;
  let type: string;
  if (scale === 0) {
    if (digits > WIDTH) return null;
    type = 'BIGINT';
  } else if (scale <= MAX_SCALE && intDigits + scale <= WIDTH) {
    type = `DECIMAL(${WIDTH},${scale})`;
  } else {
    type = 'DOUBLE';
  }
  const text = {
    integer: v,
    decimal: v,
    decimal_comma: `replace(${v}, ',', '.')`,
    thousands_us: `replace(${v}, ',', '')`,
    thousands_eu: `replace(replace(${v}, '.', ''), ',', '.')`,
  }[kind];
  const what = {
    integer: 'whole numbers',
    decimal: 'decimal numbers',
    decimal_comma: 'decimal commas',
    thousands_us: `thousands separators${example === undefined ? '' : ` (${example})`}`,
    thousands_eu: `thousands separators and decimal commas${example === undefined ? '' : ` (${example})`}`,
  }[kind];
  return { column, type, expr: `CAST(${text} AS ${type})`, note: `\`${column}\`: ${what} read as ${type}` };
}

function dateDecision(column: string, kind: DateKind, order: 'dm' | 'md'): Decision {
  const v = valueOf(column);
  const type = kind.startsWith('ts_') ? 'TIMESTAMP' : 'DATE';
  let formats: string[] | null = null;
  let shown: string;
  if (kind === 'date_slashes' || kind === 'ts_slashes') {
    formats = SLASH_FORMATS[kind][order];
    shown = order === 'dm' ? 'dd/mm/yyyy' : 'mm/dd/yyyy';
  } else if (kind === 'date_dots' || kind === 'ts_dots') {
    formats = FORMATS[kind];
    shown = 'dd.mm.yyyy';
  } else {
    shown = 'yyyy-mm-dd';
  }
  const expr = formats === null ? `CAST(${v} AS ${type})` : `CAST(strptime(${v}, ${literalList(formats)}) AS ${type})`;
  const what = type === 'DATE' ? `dates ${shown}` : `date-times ${shown} hh:mm`;
  return { column, type, expr, note: `\`${column}\`: ${what} read as ${type}` };
}

/** Numbers the first rows rule out, so the full scan checks only what may fit. */
async function candidates(conn: DuckDBConnection, table: string, columns: string[], order: Kind[]): Promise<Map<string, { kinds: Kind[]; sample: string[] }>> {
  const reader = await conn.runAndReadAll(`SELECT ${columns.map((c) => `${valueOf(c)} AS ${ident(c)}`).join(', ')} FROM ${ident(table)} LIMIT ${SAMPLE_ROWS}`);
  const data = reader.getColumnsJS() as unknown as (string | null)[][];
  const out = new Map<string, { kinds: Kind[]; sample: string[] }>();
  columns.forEach((c, i) => {
    const sample = (data[i] ?? []).filter((v): v is string => v !== null);
    out.set(c, { kinds: order.filter((k) => sample.every((v) => matches(k, v))), sample });
  });
  return out;
}

async function typeText(conn: DuckDBConnection, table: string, columns: string[], options: TextTypingOptions): Promise<{ decisions: Decision[]; notes: string[] }> {
  if (columns.length === 0) return { decisions: [], notes: [] };
  const order = kindOrder(options.delimiter);
  const cands = await candidates(conn, table, columns, order);
  const checks: Check[] = [];
  for (const c of columns) for (const k of cands.get(c)?.kinds ?? []) checks.push(checksFor(c, k, checks.length));
  if (checks.length === 0) return { decisions: [], notes: [] };
  const counts = columns.map((c, i) => `count(${valueOf(c)}) AS n_${i}`);
  const parts = checks.flatMap((ch) => Object.entries(ch.parts).map(([alias, sql]) => `${sql} AS ${alias}`));
  const reader = await conn.runAndReadAll(`SELECT ${[...counts, ...parts].join(', ')} FROM ${ident(table)}`);
  const row = reader.getRowObjectsJS()[0] ?? {};
  const num = (alias: string): number => Number(row[alias] ?? 0);
  const decisions: Decision[] = [];
  const notes: string[] = [];
  columns.forEach((column, ci) => {
    if (num(`n_${ci}`) === 0) return;
    const mine = checks.map((ch, i) => ({ ch, i })).filter(({ ch }) => ch.column === column);
    for (const { ch, i } of mine) {
      const kind = ch.kind;
      if (isNumberKind(kind)) {
        if (num(`bad_${i}`) !== 0) continue;
        const sep = kind === 'thousands_us' ? ',' : '.';
        const example = cands.get(column)?.sample.find((v) => v.includes(sep));
        const d = numberDecision(column, kind, num(`scale_${i}`), num(`digits_${i}`), example);
        if (d !== null) {
          decisions.push(d);
          return;
        }
        continue;
      }
      if (kind === 'date_slashes' || kind === 'ts_slashes') {
        const dm = num(`bad_${i}`) === 0;
        const md = num(`badmd_${i}`) === 0;
        if (dm && md) {
          notes.push(`\`${column}\`: dates like ${cands.get(column)?.sample[0] ?? '01/02/2026'} could be day/month or month/day (no day above 12): left as text`);
          return;
        }
        if (dm || md) {
          decisions.push(dateDecision(column, kind, dm ? 'dm' : 'md'));
          return;
        }
        continue;
      }
      if (num(`bad_${i}`) === 0) {
        decisions.push(dateDecision(column, kind, 'dm'));
        return;
      }
    }
  });
  return { decisions, notes };
}

/** The fewest decimals (≤ MAX_SCALE) that every sampled value has, or null. */
function sampleScale(values: readonly (number | null)[]): number | null {
  for (let s = 0; s <= MAX_SCALE; s += 1) {
    if (values.every((x) => x === null || (Number.isFinite(x) && Number(x.toFixed(s)) === x))) return s;
  }
  return null;
}

/**
 * DOUBLE columns whose values all have at most MAX_SCALE decimals (and fit 18 digits) →
 * DECIMAL. The first rows suggest the scale; one scan checks it over the column (a value
 * with more decimals further down costs a second scan for the larger scales).
 */
async function typeDoubles(conn: DuckDBConnection, table: string, columns: string[]): Promise<Decision[]> {
  if (columns.length === 0) return [];
  const sample = (await conn.runAndReadAll(`SELECT ${columns.map(ident).join(', ')} FROM ${ident(table)} LIMIT ${SAMPLE_ROWS}`)).getColumnsJS() as unknown as (number | null)[][];
  const out: Decision[] = [];
  const wanted = columns.map((c, i) => ({ c, s: sampleScale(sample[i] ?? []) })).filter((w): w is { c: string; s: number } => w.s !== null);
  for (const { c, s } of wanted) {
    const x = ident(c);
    const scales = [s];
    let found: number | null = null;
    let max = 0;
    for (let round = 0; round < 2 && found === null; round += 1) {
      const parts = scales.map((k) => `bool_and(${x} IS NULL OR ${x} = round(${x}, ${k})) AS s${k}`);
      const row = (await conn.runAndReadAll(`SELECT bool_and(${x} IS NULL OR isfinite(${x})) AS finite, count(${x}) AS n, max(abs(${x})) AS mx, ${parts.join(', ')} FROM ${ident(table)}`)).getRowObjectsJS()[0] ?? {};
      if (row.finite !== true || Number(row.n ?? 0) === 0) break;
      max = Number(row.mx ?? 0);
      found = scales.find((k) => row[`s${k}`] === true) ?? null;
      scales.splice(0, scales.length, ...Array.from({ length: MAX_SCALE - s }, (_, k) => s + k + 1));
      if (scales.length === 0) break;
    }
    if (found === null || max >= 10 ** (WIDTH - found)) continue;
    const type = found === 0 ? 'BIGINT' : `DECIMAL(${WIDTH},${found})`;
    const what = found === 0 ? 'whole numbers' : `numbers with at most ${found} decimal${found === 1 ? '' : 's'}`;
    out.push({ column: c, type, expr: `CAST(${x} AS ${type})`, note: `\`${c}\`: ${what} read as ${type} (exact sums)` });
  }
  return out;
}

/** Type the table's text (and, if asked, DOUBLE) columns in place; the columns after, and what was done. */
export async function typeColumns(conn: DuckDBConnection, table: string, columns: readonly DataColumn[], options: TextTypingOptions = {}): Promise<Typed> {
  const text = await typeText(conn, table, columns.filter((c) => c.type === 'VARCHAR').map((c) => c.name), options);
  const doubles = options.doubles === true ? await typeDoubles(conn, table, columns.filter((c) => c.type === 'DOUBLE').map((c) => c.name)) : [];
  const decisions = [...text.decisions, ...doubles];
  // One ALTER per column rewrites that column only (a whole-table copy costs more on wide tables).
  for (const d of decisions) await conn.run(`ALTER TABLE ${ident(table)} ALTER ${ident(d.column)} SET DATA TYPE ${d.type} USING ${d.expr}`);
  const byColumn = new Map(decisions.map((d) => [d.column, d]));
  return {
    columns: columns.map((c) => ({ name: c.name, type: byColumn.get(c.name)?.type ?? c.type })),
    notes: [...columns.flatMap((c) => {
      const d = byColumn.get(c.name);
      return d === undefined ? [] : [d.note];
    }), ...text.notes],
  };
}
