/** The one table `npm run bench` prints (markdown), and the numbers in it. */

export interface Row {
  name: string;
  median: number;
  unit: string;
  /** The floor this row is divided by, in the same unit. */
  floor?: number;
  /** Default median / floor; rows measured against a floor taken just before each repetition give the median of those ratios. */
  ratio?: number;
  /** What the issue asks for, e.g. `{ op: '<', value: 250 }` in the row's unit. */
  target?: { op: '<' | '>'; value: number };
  note: string;
}

/** About 3 significant figures, no exponent: 0.0123, 1.23, 12.3, 123, 12345; whole numbers as they are. */
export function num(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (Number.isInteger(value)) return value.toString();
  const abs = Math.abs(value);
  if (abs >= 100) return Math.round(value).toString();
  if (abs >= 10) return value.toFixed(1);
  if (abs >= 1) return value.toFixed(2);
  return value.toPrecision(3);
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

export function formatTable(rows: readonly Row[]): string {
  const head = ['measurement', 'median', 'unit', 'floor', 'ratio', 'target', 'note'];
  const lines = [`| ${head.join(' | ')} |`, `|${head.map((h) => (h === 'median' || h === 'floor' || h === 'ratio' ? '---:' : '---')).join('|')}|`];
  for (const r of rows) {
    const value = r.ratio ?? (r.floor === undefined || r.floor === 0 ? undefined : r.median / r.floor);
    const ratio = value === undefined ? '' : `×${num(value)}`;
    let target = '';
    if (r.target !== undefined) {
      const met = r.target.op === '<' ? r.median < r.target.value : r.median > r.target.value;
      target = `${r.target.op} ${num(r.target.value)} ${r.unit} ${met ? '(met)' : '(missed)'}`;
    }
    const cells = [r.name, num(r.median), r.unit, r.floor === undefined ? '' : num(r.floor), ratio, target, r.note];
    lines.push(`| ${cells.map(cell).join(' | ')} |`);
  }
  return lines.join('\n');
}
