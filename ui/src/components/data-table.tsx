/**
 * A table of data (a workbook sheet, a query result, a column profile), accessible and
 * plain: a caption, column headers with `scope="col"`, numbers right-aligned in tabular
 * figures, rounded for display (`roundForDisplay`; no locale grouping) with the value as
 * computed in the cell's title and in what a copy takes, dates as `YYYY-MM-DD` (with
 * `HH:MM` when they hold a time), empty cells as a muted em-dash. Long tables scroll
 * inside a bounded box under a sticky header, and show at most `maxRows` rows with a note.
 * Every value goes into a text node: cell content is never markup.
 */
import type { ComponentChildren } from 'preact';
import { useId } from 'preact/hooks';
import { roundForDisplay } from '../round-number';

/**
 * A cell as a workbook (string, number, boolean, Date, null) or the data tool (string,
 * number, boolean, null) gives it; anything else shows as its JSON text.
 */
export type CellValue = unknown;

export interface DataColumnHead {
  label: string;
  /** Right-align the column (default: when every non-empty cell shown is a number). */
  numeric?: boolean;
  /** Shown as the header's tooltip (a DuckDB type, say). */
  title?: string;
  /** Cells never wrap (type names: `DECIMAL(18,2)` is not broken mid-word). */
  nowrap?: boolean;
}

export interface DataTableProps {
  caption: ComponentChildren;
  columns: DataColumnHead[];
  rows: readonly (readonly CellValue[])[];
  /** Rows shown at most (default 1000); a note says how many there are. */
  maxRows?: number;
  /** Said after the row-cap note, e.g. "Download the workbook to see them all." */
  moreHint?: string;
  testId?: string;
}

/** Rows shown at most by default. */
export const MAX_ROWS = 1000;

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/**
 * `YYYY-MM-DD`, or `YYYY-MM-DD HH:MM[:SS]` when the date holds a time. Read in UTC:
 * workbook dates carry no time zone, and the parser hands them over as UTC.
 */
export function formatDate(d: Date): string {
  if (Number.isNaN(d.getTime())) return 'Invalid date';
  const day = `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
  const h = d.getUTCHours();
  const m = d.getUTCMinutes();
  const s = d.getUTCSeconds();
  if (h === 0 && m === 0 && s === 0) return day;
  return `${day} ${pad(h)}:${pad(m)}${s === 0 ? '' : `:${pad(s)}`}`;
}

/** A cell's text; `null` for an empty cell. Numbers as JavaScript writes them: no grouping, no rounding. */
export function cellText(value: CellValue): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (value instanceof Date) return formatDate(value);
  if (typeof value === 'bigint') return value.toString();
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * A copy out of the table takes each rounded number's full value (`data-full`): one cell's
 * text when the selection is inside it, else the selected rows as tab-separated lines.
 */
function copyFullValues(e: ClipboardEvent): void {
  const sel = (e.currentTarget as HTMLElement).ownerDocument.getSelection();
  if (sel === null || sel.rangeCount === 0 || sel.isCollapsed || e.clipboardData === null) return;
  const range = sel.getRangeAt(0);
  const common = range.commonAncestorContainer;
  const inCell = (common instanceof Element ? common : common.parentElement)?.closest('[data-full]');
  let text: string | null;
  if (inCell !== null && inCell !== undefined) {
    text = inCell.getAttribute('data-full');
  } else {
    const box = document.createElement('div');
    box.append(range.cloneContents());
    const rounded = box.querySelectorAll('[data-full]');
    if (rounded.length === 0) return; // nothing rounded: the browser's own copy
    for (const el of rounded) el.textContent = el.getAttribute('data-full');
    const rows = [...box.querySelectorAll('tr')];
    text = rows.length === 0 ? box.textContent : rows.map((tr) => [...tr.children].map((c) => c.textContent ?? '').join('\t')).join('\n');
  }
  e.clipboardData.setData('text/plain', text ?? '');
  e.preventDefault();
}

/** Per column: right-aligned when told so, else when every non-empty cell is a number (and there is one). */
function numericColumns(columns: DataColumnHead[], rows: readonly (readonly CellValue[])[]): boolean[] {
  return columns.map((c, i) => {
    if (c.numeric !== undefined) return c.numeric;
    let seen = false;
    for (const row of rows) {
      const v = row[i];
      if (v === null || v === undefined) continue;
      if (typeof v !== 'number') return false;
      seen = true;
    }
    return seen;
  });
}

export function DataTable({ caption, columns, rows, maxRows = MAX_ROWS, moreHint, testId }: DataTableProps) {
  const captionId = useId();
  const shown = rows.length > maxRows ? rows.slice(0, maxRows) : rows;
  const numeric = numericColumns(columns, shown);
  return (
    <div class="data-table" data-testid={testId}>
      {/* A scrolling box is a region the keyboard can reach (and scroll with the arrow keys). */}
      <div class="data-table__scroll" role="region" aria-labelledby={captionId} tabIndex={0} onCopy={copyFullValues}>
        <table class="table data-table__table">
          <caption id={captionId} class="data-table__caption">{caption}</caption>
          <thead>
            <tr>
              {columns.map((c, i) => (
                <th key={i} scope="col" class={numeric[i] === true ? 'num' : undefined} title={c.title}>{c.label}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {shown.map((row, r) => (
              <tr key={r}>
                {columns.map((c, i) => <Cell key={i} value={row[i]} numeric={numeric[i] === true} nowrap={c.nowrap === true} />)}
              </tr>
            ))}
          </tbody>
        </table>
        {rows.length === 0 && <p class="data-table__empty muted small">No rows.</p>}
      </div>
      {rows.length > maxRows && (
        <p class="data-table__note muted small" data-testid="row-cap-note">
          Showing the first {maxRows} of {rows.length} rows.{moreHint === undefined ? '' : ` ${moreHint}`}
        </p>
      )}
    </div>
  );
}

function Cell({ value, numeric, nowrap }: { value: CellValue; numeric: boolean; nowrap: boolean }) {
  const text = cellText(value);
  if (text === null) return <td class={numeric ? 'num data-table__null' : 'data-table__null'} title="empty">—</td>;
  const isNumber = typeof value === 'number';
  const cls = [numeric || isNumber ? 'num' : '', value instanceof Date ? 'data-table__date' : '', nowrap ? 'data-table__nowrap' : ''].filter((c) => c !== '').join(' ');
  const shown = isNumber ? roundForDisplay(value) : text;
  // A rounded number keeps its full value: on hover, and for a copy (copyFullValues).
  const full = shown === text ? {} : { title: text, 'data-full': text };
  return <td class={cls === '' ? undefined : cls} {...full}>{shown}</td>;
}
