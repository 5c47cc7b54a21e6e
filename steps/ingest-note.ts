/**
 * An `ingest` input that names a vault note (`vault:watchlist.md`) instead of a file: the
 * note is read through the vault (its path rules apply), its one Markdown table
 * (markdown-table.ts) is taken, and written as `inputs/<id>/<note's name>.csv`, where the
 * data tool serves it as a table typed exactly as the same CSV would be (numbers as
 * numbers, an empty cell NULL). A note with no table, more than one, or a row with more
 * cells than its header fails with KW_ERR_NOTE_TABLE naming the note and the lines.
 */
import path from 'node:path';
import { KowalskiError } from '../core/index.js';
import { markdownTables } from './markdown-table.js';
import type { MarkdownTable } from './markdown-table.js';
import type { StepContext } from './protocol.js';

export interface NoteTable {
  id: string;
  /** The note's path in the vault. */
  note: string;
  table: MarkdownTable;
  /** Workdir-relative CSV file the table is written to. */
  dest: string;
  csv: string;
}

/** One CSV field: quoted when it holds a comma, a quote, a line break or a leading/trailing space. */
function csvField(cell: string): string {
  return /[",\r\n]|^\s|\s$/.test(cell) ? `"${cell.replaceAll('"', '""')}"` : cell;
}

export function tableCsv(table: MarkdownTable): string {
  return [table.header, ...table.rows.map((r) => r.cells)].map((cells) => cells.map(csvField).join(',')).join('\n') + '\n';
}

function only(note: string, tables: MarkdownTable[], where: { file: string; key: string }): MarkdownTable {
  const at = (t: MarkdownTable): string => `line ${t.line}`;
  if (tables.length === 0) {
    throw new KowalskiError('KW_ERR_NOTE_TABLE', `the vault note ${JSON.stringify(note)} holds no Markdown table (a header row, then a row of --- for each column, then the rows)`, { where });
  }
  if (tables.length > 1) {
    throw new KowalskiError('KW_ERR_NOTE_TABLE', `the vault note ${JSON.stringify(note)} holds ${tables.length} Markdown tables (at ${tables.map(at).join(', ')}); it must hold exactly one`, { where });
  }
  const table = tables[0]!;
  const problem = table.problems[0];
  if (problem !== undefined) {
    throw new KowalskiError('KW_ERR_NOTE_TABLE', `the vault note ${JSON.stringify(note)}, line ${problem.line}: ${problem.message} (a cell that holds a pipe writes it \\|)`, { where });
  }
  return table;
}

/** Read the note and take its table; nothing is written yet (the caller writes `csv` to `dest`). */
export async function readNoteTable(ctx: StepContext, id: string, note: string, folder: string): Promise<NoteTable> {
  const where = { file: ctx.task.step.file, key: `inputs.${id}` };
  ctx.progress(`reading the vault note ${note}`);
  let read;
  try {
    read = await ctx.request({ op: 'vault-read', path: note });
  } catch (err) {
    if (ctx.signal.aborted || !(err instanceof KowalskiError)) throw err;
    throw new KowalskiError(err.code, `input \`${id}\` (vault:${note}): ${err.message}`, { cause: err, where });
  }
  const table = only(read.path, markdownTables(read.content), where);
  const dest = `${folder}/${path.posix.basename(read.path).replace(/\.md$/i, '')}.csv`;
  return { id, note: read.path, table, dest, csv: tableCsv(table) };
}
