/**
 * The tables of a Markdown note, as GitHub-flavoured Markdown writes them: a header row, a
 * delimiter row (`---`, `:--`, `--:`, `:-:` per column, as many as the header's cells), then
 * body rows up to the first blank line or line without a pipe. Cells are split on pipes
 * that are not escaped (`\|` is a pipe inside a cell), the outer pipes are optional, and
 * each cell is trimmed. The text around a table, and anything inside a fenced code block
 * (``` or ~~~), is not a table. A body row with fewer cells than the header is filled with
 * empty cells (GFM's rule); one with more is a problem, not cut short silently.
 */

export interface MarkdownTable {
  /** The header row's 1-based line in the note. */
  line: number;
  header: string[];
  /** Each body row with its 1-based line; cells as written, trimmed, `\|` unescaped; '' for empty. */
  rows: { line: number; cells: string[] }[];
  /** What does not fit the table (a row with more cells than the header), with its line. */
  problems: { line: number; message: string }[];
}

const DELIMITER_CELL = /^:?-+:?$/;
const FENCE = /^ {0,3}(`{3,}|~{3,})/;

/** The cells of a row: split on unescaped pipes, without the optional outer ones. */
export function splitRow(line: string): string[] {
  const cells: string[] = [];
  let cell = '';
  for (let i = 0; i < line.length; i += 1) {
    const ch = line[i];
    if (ch === '\\' && line[i + 1] === '|') {
      cell += '|';
      i += 1;
    } else if (ch === '|') {
      cells.push(cell);
      cell = '';
    } else {
      cell += ch;
    }
  }
  cells.push(cell);
  const trimmed = line.trim();
  if (trimmed.startsWith('|')) cells.shift();
  if (trimmed.endsWith('|') && !trimmed.endsWith('\\|') && cells.length > 0) cells.pop();
  return cells.map((c) => c.trim());
}

/** Whether a line holds a pipe that is not escaped. */
function hasPipe(line: string): boolean {
  return /(^|[^\\])\|/.test(line);
}

function isDelimiterRow(line: string, width: number): boolean {
  if (!hasPipe(line) && width > 1) return false;
  const cells = splitRow(line);
  return cells.length === width && cells.every((c) => DELIMITER_CELL.test(c));
}

/** Every table of the note, in order. */
export function markdownTables(text: string): MarkdownTable[] {
  const lines = text.split(/\r?\n/);
  const tables: MarkdownTable[] = [];
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    const marker = FENCE.exec(line)?.[1];
    if (fence !== null) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      continue;
    }
    if (marker !== undefined) {
      fence = marker;
      continue;
    }
    if (!hasPipe(line) || i + 1 >= lines.length) continue;
    const header = splitRow(line);
    if (!isDelimiterRow(lines[i + 1] ?? '', header.length)) continue;
    const table: MarkdownTable = { line: i + 1, header, rows: [], problems: [] };
    let j = i + 2;
    for (; j < lines.length; j += 1) {
      const row = lines[j] ?? '';
      if (row.trim() === '' || !hasPipe(row) || FENCE.test(row)) break;
      const cells = splitRow(row);
      if (cells.length > header.length) {
        table.problems.push({ line: j + 1, message: `the row has ${cells.length} cells, the header ${header.length}` });
      }
      while (cells.length < header.length) cells.push('');
      table.rows.push({ line: j + 1, cells: cells.slice(0, header.length) });
    }
    tables.push(table);
    i = j - 1;
  }
  return tables;
}
