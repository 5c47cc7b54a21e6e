/**
 * What a workbook cell holds, as read-excel-file gives it with `parseNumber` keeping the
 * number's text (so no digit is lost to a double on the way): text, a number, a date
 * (a `Date` holding the wall-clock time as UTC), a boolean, or nothing.
 */

/** A number cell, with the text the file stores for it (`1534.8`, `1.2E-3`). */
export class XlsxNumber {
  constructor(readonly raw: string) {}
}

export type Cell = string | number | boolean | Date | XlsxNumber | null | undefined;

/** Empty: nothing, or text that is only whitespace. */
export function isEmptyCell(cell: Cell): cell is null | undefined | '' {
  return cell === null || cell === undefined || (typeof cell === 'string' && cell.trim() === '');
}

/** `1.5e-7` → `0.00000015`: a number's text without an exponent. */
export function plainDecimal(text: string): string {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?[eE]([+-]?\d+)$/.exec(text);
  if (m === null) return text;
  const sign = m[1] === '-' ? '-' : '';
  const intPart = m[2] ?? '';
  const frac = m[3] ?? '';
  const exp = Number(m[4]);
  const digits = intPart + frac;
  const point = intPart.length + exp;
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  out = out.replace(/^0+(?=\d)/, '');
  if (out.includes('.')) out = out.replace(/0+$/, '').replace(/\.$/, '');
  return sign + out;
}

/**
 * A number cell's value as decimal text, at the 15 significant digits a spreadsheet keeps
 * (`1049.3599999999999` → `1049.36`); null for NaN or ±Infinity.
 */
export function numberText(cell: XlsxNumber | number): string | null {
  const n = typeof cell === 'number' ? cell : Number(cell.raw);
  if (!Number.isFinite(n)) return null;
  if (n === 0) return '0';
  return plainDecimal(String(Number(n.toPrecision(15))));
}

/** A date cell → ms since the epoch, rounded to the nearest second (read-excel-file gives 10:59:59.999 for 11:00). */
export function dateMillis(d: Date): number {
  return Math.round(d.getTime() / 1000) * 1000;
}

const pad = (n: number, w = 2): string => String(n).padStart(w, '0');

/** `YYYY-MM-DD` of a UTC date. */
export function isoDate(ms: number): string {
  const d = new Date(ms);
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`;
}

/** `YYYY-MM-DD HH:MM:SS` of a UTC time. */
export function isoTimestamp(ms: number): string {
  const d = new Date(ms);
  return `${isoDate(ms)} ${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** A cell as text (for a column that mixes kinds): numbers as their decimal text, dates in ISO form. */
export function cellText(cell: Cell): string | null {
  if (isEmptyCell(cell)) return null;
  if (typeof cell === 'string') return cell;
  if (typeof cell === 'boolean') return cell ? 'true' : 'false';
  if (cell instanceof Date) {
    const ms = dateMillis(cell);
    return ms % 86_400_000 === 0 ? isoDate(ms) : isoTimestamp(ms);
  }
  return numberText(cell) ?? String(typeof cell === 'number' ? cell : cell.raw);
}
