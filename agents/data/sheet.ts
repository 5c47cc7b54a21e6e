/**
 * The shape of a worksheet as people make them: where the header is, which rows are data.
 *
 * - Completely empty rows are skipped wherever they are.
 * - The header is the first row, among the first 20 that are not empty, whose non-empty
 *   cells are all text and as many as the widest row's; rows above it are titles
 *   (`Invoices 2026` merged across A1:F1) and are skipped. Failing that, the first
 *   non-empty row is the header if its cells are all text; else there is no header and
 *   the columns are `column_1`, `column_2`…
 * - A row just after a blank row whose first non-empty cell is a total label (`Total`,
 *   `Sum`, `Grand total`, `Subtotal`, `Gesamt`, `Summe`, `Suma`, `Razem`; without case,
 *   a trailing `:` allowed) is a summary row and is left out.
 * - A column with neither a header nor any data is left out.
 * Each of these is a note naming the sheet's row numbers (1-based, as the sheet shows them).
 */
import { isEmptyCell } from './cells.js';
import type { Cell } from './cells.js';

const HEADER_SEARCH_ROWS = 20;
export const TOTAL_LABELS: ReadonlySet<string> = new Set(['total', 'sum', 'grand total', 'subtotal', 'sub-total', 'gesamt', 'summe', 'suma', 'razem']);

export interface SheetLayout {
  /** The header cells of the kept columns (null: no header row). */
  header: (string | null)[] | null;
  /** The 1-based sheet row of the header, null when there is none. */
  headerRow: number | null;
  /** 0-based indexes of the kept columns. */
  columns: number[];
  /** The data rows: their sheet row number and their cells (all columns, not only the kept ones). */
  rows: { row: number; cells: readonly Cell[] }[];
  notes: string[];
}

function filled(row: readonly Cell[]): number {
  let n = 0;
  for (const c of row) if (!isEmptyCell(c)) n += 1;
  return n;
}

function allText(row: readonly Cell[]): boolean {
  return row.every((c) => isEmptyCell(c) || typeof c === 'string');
}

function isTotalLabel(row: readonly Cell[]): boolean {
  const first = row.find((c) => !isEmptyCell(c));
  if (typeof first !== 'string') return false;
  return TOTAL_LABELS.has(first.trim().replace(/\s*:$/, '').replace(/\s+/g, ' ').toLowerCase());
}

/** `A`, `B`, … `Z`, `AA`: the letters of a 0-based column index. */
export function columnLetters(index: number): string {
  let n = index + 1;
  let out = '';
  while (n > 0) {
    const r = (n - 1) % 26;
    out = String.fromCharCode(65 + r) + out;
    n = Math.floor((n - 1) / 26);
  }
  return out;
}

/** `3`, `3–5`, `3, 7–9`: sheet rows as ranges. */
export function rowRanges(rows: readonly number[]): string {
  const parts: string[] = [];
  let i = 0;
  while (i < rows.length) {
    let j = i;
    while (j + 1 < rows.length && rows[j + 1] === (rows[j] ?? 0) + 1) j += 1;
    parts.push(i === j ? String(rows[i]) : `${rows[i]}–${rows[j]}`);
    i = j + 1;
  }
  return parts.join(', ');
}

const rowWord = (n: number): string => (n === 1 ? 'row' : 'rows');

function findHeader(rows: readonly (readonly Cell[])[], widest: number): number | null {
  const candidates: number[] = [];
  for (let i = 0; i < rows.length && candidates.length < HEADER_SEARCH_ROWS; i += 1) {
    if (filled(rows[i] ?? []) > 0) candidates.push(i);
  }
  for (const i of candidates) {
    const row = rows[i] ?? [];
    if (allText(row) && filled(row) === widest) return i;
  }
  const first = candidates[0];
  if (first !== undefined && allText(rows[first] ?? [])) return first;
  return null;
}

export function sheetLayout(rows: readonly (readonly Cell[])[]): SheetLayout {
  const notes: string[] = [];
  const widest = rows.reduce((m, r) => Math.max(m, filled(r)), 0);
  if (widest === 0) return { header: null, headerRow: null, columns: [], rows: [], notes };
  const headerIndex = findHeader(rows, widest);
  const start = headerIndex === null ? 0 : headerIndex + 1;
  if (headerIndex !== null) {
    const titles: number[] = [];
    for (let i = 0; i < headerIndex; i += 1) if (filled(rows[i] ?? []) > 0) titles.push(i + 1);
    if (titles.length > 0) notes.push(`${rowWord(titles.length)} ${rowRanges(titles)} above the header (row ${headerIndex + 1}) skipped as ${titles.length === 1 ? 'a title' : 'titles'}`);
  } else {
    notes.push('no header row found: the columns are named column_1, column_2…');
  }
  const blank: number[] = [];
  const summaries: string[] = [];
  let lastKept = 0;
  const data: SheetLayout['rows'] = [];
  let previousBlank = false;
  for (let i = start; i < rows.length; i += 1) {
    const row = rows[i] ?? [];
    if (filled(row) === 0) {
      blank.push(i + 1);
      previousBlank = true;
      continue;
    }
    if (previousBlank && isTotalLabel(row)) {
      const label = String(row.find((c) => !isEmptyCell(c))).trim();
      summaries.push(`row ${i + 1} ("${label}") after a blank row left out as a summary row`);
      lastKept = i + 1;
    } else {
      lastKept = i + 1;
      data.push({ row: i + 1, cells: row });
    }
    previousBlank = false;
  }
  // Blank rows at the end are not worth a note; those between rows are.
  const inner = blank.filter((r) => r < lastKept);
  if (inner.length > 0) notes.push(`blank ${rowWord(inner.length)} ${rowRanges(inner)} skipped`);
  notes.push(...summaries);
  const headerCells = headerIndex === null ? [] : (rows[headerIndex] ?? []);
  const used: boolean[] = headerCells.map((c) => !isEmptyCell(c));
  for (const r of data) {
    r.cells.forEach((c, i) => {
      if (!isEmptyCell(c)) used[i] = true;
    });
  }
  const columns: number[] = [];
  const dropped: string[] = [];
  const last = used.lastIndexOf(true);
  for (let c = 0; c <= last; c += 1) {
    if (used[c] === true) columns.push(c);
    else dropped.push(columnLetters(c));
  }
  if (dropped.length > 0) notes.push(`empty column${dropped.length === 1 ? '' : 's'} ${dropped.join(', ')} (no header, no data) left out`);
  return {
    header: headerIndex === null ? null : columns.map((c) => {
      const cell = headerCells[c];
      return typeof cell === 'string' ? cell : null;
    }),
    headerRow: headerIndex === null ? null : headerIndex + 1,
    columns,
    rows: data,
    notes,
  };
}
