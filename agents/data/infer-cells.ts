/**
 * The type of a workbook column, from its cells (header and left-out rows already gone):
 * - numbers only → BIGINT when all are integers, else DECIMAL(18,s) with s the most
 *   decimals (≤ 6, and the integer part fits), else DOUBLE — so sums of money are exact;
 * - dates only → DATE when all are at midnight, else TIMESTAMP, rounded to the second;
 * - booleans only → BOOLEAN;
 * - numbers (or dates) with a few placeholder texts (`n/a`, `-`, `?`, `#N/A`…) → the
 *   numeric (date) type, those cells NULL, and a note saying how many and which;
 * - anything else → VARCHAR, numbers and dates as their text.
 * Empty cells are NULL and never decide the type.
 */
import { DuckDBDateValue, DuckDBDecimalValue, DuckDBTimestampValue } from '@duckdb/node-api';
import type { DuckDBValue } from '@duckdb/node-api';
import { XlsxNumber, cellText, dateMillis, isEmptyCell, numberText } from './cells.js';
import type { Cell } from './cells.js';

/** Texts that stand for "no value" in a numeric or date column (compared trimmed, without case). */
export const PLACEHOLDERS: ReadonlySet<string> = new Set([
  'n/a', 'na', '-', '—', '–', '?', 'none', 'null', '#n/a',
  // Excel's error values, as a formula's cached result
  '#div/0!', '#value!', '#ref!', '#num!', '#name?', '#null!',
]);

/** Decimal places a DECIMAL column keeps at most; beyond, DOUBLE. */
export const MAX_SCALE = 6;
const DECIMAL_WIDTH = 18;
const DAY_MS = 86_400_000;

export interface InferredColumn {
  /** DuckDB type: BIGINT, DECIMAL(18,s), DOUBLE, DATE, TIMESTAMP, BOOLEAN or VARCHAR. */
  type: string;
  /** One value per cell, ready for the appender. */
  values: DuckDBValue[];
  /** What a reader should know (placeholders read as NULL, times rounded), without the column name. */
  notes: string[];
}

type Kind = 'number' | 'date' | 'boolean';

function kindOf(cell: Cell): Kind | 'placeholder' | 'text' | 'empty' {
  if (isEmptyCell(cell)) return 'empty';
  if (typeof cell === 'boolean') return 'boolean';
  if (cell instanceof Date) return 'date';
  if (cell instanceof XlsxNumber || typeof cell === 'number') return numberText(cell) === null ? 'text' : 'number';
  return PLACEHOLDERS.has(String(cell).trim().toLowerCase()) ? 'placeholder' : 'text';
}

function scaleOf(text: string): number {
  const dot = text.indexOf('.');
  return dot < 0 ? 0 : text.length - dot - 1;
}

function intDigitsOf(text: string): number {
  const digits = text.replace(/^[+-]/, '');
  const dot = digits.indexOf('.');
  return dot < 0 ? digits.length : dot;
}

/** `12.5` at scale 2 → 1250n. */
function scaled(text: string, scale: number): bigint {
  const negative = text.startsWith('-');
  const [whole = '0', frac = ''] = text.replace(/^[+-]/, '').split('.');
  const v = BigInt(whole + frac.padEnd(scale, '0'));
  return negative ? -v : v;
}

function numeric(cells: readonly Cell[]): Pick<InferredColumn, 'type' | 'values'> {
  const texts = cells.map((c) => (kindOf(c) === 'number' ? numberText(c as XlsxNumber | number) : null));
  let scale = 0;
  let intDigits = 0;
  for (const t of texts) {
    if (t === null) continue;
    scale = Math.max(scale, scaleOf(t));
    intDigits = Math.max(intDigits, intDigitsOf(t));
  }
  if (scale === 0 && intDigits <= DECIMAL_WIDTH) {
    return { type: 'BIGINT', values: texts.map((t) => (t === null ? null : BigInt(t))) };
  }
  if (scale <= MAX_SCALE && intDigits + scale <= DECIMAL_WIDTH) {
    return {
      type: `DECIMAL(${DECIMAL_WIDTH},${scale})`,
      values: texts.map((t) => (t === null ? null : new DuckDBDecimalValue(scaled(t, scale), DECIMAL_WIDTH, scale))),
    };
  }
  return { type: 'DOUBLE', values: texts.map((t) => (t === null ? null : Number(t))) };
}

function temporal(cells: readonly Cell[]): InferredColumn {
  const ms = cells.map((c) => (c instanceof Date ? dateMillis(c) : null));
  const rounded = cells.filter((c) => c instanceof Date && c.getTime() % 1000 !== 0).length;
  const notes = rounded > 0 ? [`${rounded} date-time${rounded === 1 ? '' : 's'} rounded to the nearest second`] : [];
  if (ms.every((m) => m === null || m % DAY_MS === 0)) {
    return { type: 'DATE', values: ms.map((m) => (m === null ? null : new DuckDBDateValue(m / DAY_MS))), notes };
  }
  return { type: 'TIMESTAMP', values: ms.map((m) => (m === null ? null : new DuckDBTimestampValue(BigInt(m) * 1000n))), notes };
}

function placeholderNote(cells: readonly Cell[], type: string): string {
  const counts = new Map<string, number>();
  for (const c of cells) {
    if (kindOf(c) !== 'placeholder') continue;
    const text = String(c).trim();
    counts.set(text, (counts.get(text) ?? 0) + 1);
  }
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const which = [...counts.entries()].map(([text, n]) => `"${text}" ×${n}`).join(', ');
  return `${total} text cell${total === 1 ? '' : 's'} read as NULL in a ${type} column (${which})`;
}

/** The type and values of one column of cells. */
export function inferCells(cells: readonly Cell[]): InferredColumn {
  const counts = { number: 0, date: 0, boolean: 0, placeholder: 0, text: 0, empty: 0 };
  for (const c of cells) counts[kindOf(c)] += 1;
  const kinds = (['number', 'date', 'boolean'] as const).filter((k) => counts[k] > 0);
  if (counts.text === 0 && kinds.length === 1) {
    const kind = kinds[0];
    if (kind === 'boolean' && counts.placeholder === 0) {
      return { type: 'BOOLEAN', values: cells.map((c) => (typeof c === 'boolean' ? c : null)), notes: [] };
    }
    if (kind === 'number') {
      const col = numeric(cells);
      return { ...col, notes: counts.placeholder > 0 ? [placeholderNote(cells, 'numeric')] : [] };
    }
    if (kind === 'date') {
      const col = temporal(cells);
      return counts.placeholder > 0 ? { ...col, notes: [...col.notes, placeholderNote(cells, 'date')] } : col;
    }
  }
  const mixed = kinds.length > 0 && counts.text + counts.placeholder > 0;
  return {
    type: 'VARCHAR',
    values: cells.map((c) => cellText(c)),
    notes: mixed || kinds.length > 1 ? ['cells mix text, numbers or dates: read as VARCHAR (numbers and dates as their text)'] : [],
  };
}
