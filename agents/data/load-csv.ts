/**
 * CSV and TSV files → a table, through DuckDB's `read_csv` (its sniffer finds the
 * delimiter, quoting, header and types). When the sniffer refuses a file (CRLF rows
 * followed by bare LF blank lines, ragged rows), it is read again with
 * `strict_mode=false`, then also `null_padding=true`, then with a delimiter found here
 * from the first lines; what made it read is a note. Types sniffed on a sample that a
 * later row breaks → the file is read as text and typed over all rows. Header cells are
 * named by names.ts; text columns are typed by infer-text.ts.
 */
import { readFile } from 'node:fs/promises';
import type { DuckDBConnection } from '@duckdb/node-api';
import { KowalskiError, messageOf } from '../../core/index.js';
import type { DataColumn } from '../data-types.js';
import { typeColumns } from './infer-text.js';
import { columnNames, renameNotes } from './names.js';
import { ident, literal } from './sql.js';
import { tableColumns } from './table.js';
import type { Loaded } from './table.js';

type Options = Record<string, string>;

/** What the sniffer (or this file's own look at the first lines) found. */
interface Dialect {
  delimiter: string;
  quote: string;
  escape: string;
  skip: number;
  header: boolean;
  columns: DataColumn[];
  dateFormat: string | null;
  timestampFormat: string | null;
}

const DELIMITERS = [',', ';', '\t', '|'];
/** Bytes of the file's start looked at by our own delimiter sniff. */
const HEAD_BYTES = 65_536;

function render(options: Options): string {
  return Object.entries(options).map(([k, v]) => `, ${k}=${v}`).join('');
}

function unEmpty(text: string | null | undefined): string {
  return text === null || text === undefined || text === '(empty)' ? '' : text;
}

/** Fields per line outside double quotes, for each candidate delimiter; the one that is steady wins. */
export function sniffDelimiter(head: string): string {
  const lines = head.split(/\r?\n/).filter((l) => l.trim() !== '').slice(0, 20);
  if (lines.length > 1) lines.pop(); // the last line may be cut off
  let best = ',';
  let bestCount = 0;
  for (const d of DELIMITERS) {
    const counts = lines.map((line) => {
      let n = 0;
      let quoted = false;
      for (const ch of line) {
        if (ch === '"') quoted = !quoted;
        else if (ch === d && !quoted) n += 1;
      }
      return n;
    });
    const first = counts[0] ?? 0;
    if (first > bestCount && counts.every((c) => c === first)) {
      best = d;
      bestCount = first;
    }
  }
  return best;
}

async function sniff(conn: DuckDBConnection, path: string, options: Options): Promise<Dialect> {
  const reader = await conn.runAndReadAll(
    `SELECT Delimiter, Quote, Escape, SkipRows, HasHeader, Columns, DateFormat, TimestampFormat FROM sniff_csv(${literal(path)}${render(options)})`,
  );
  const row = reader.getRowObjectsJS()[0];
  if (row === undefined) throw new KowalskiError('KW_ERR_DATA_LOAD', 'the CSV sniffer found nothing to read');
  return {
    delimiter: unEmpty(row.Delimiter as string),
    quote: unEmpty(row.Quote as string),
    escape: unEmpty(row.Escape as string),
    skip: Number(row.SkipRows ?? 0),
    header: row.HasHeader === true,
    columns: (row.Columns as { name: string; type: string }[]).map((c) => ({ name: c.name, type: c.type })),
    dateFormat: (row.DateFormat as string | null) ?? null,
    timestampFormat: (row.TimestampFormat as string | null) ?? null,
  };
}

/**
 * The dialect as read_csv options. A quoted dialect without an escape gets the quote as its
 * escape (RFC 4180: `"Acme ""Best"" Corp"` is `Acme "Best" Corp`); the sniffer leaves it
 * out once strict_mode is off, and the doubled quotes would stay in the values.
 */
function dialectOptions(d: Dialect): Options {
  const escape = d.escape === '' && d.quote !== '' ? d.quote : d.escape;
  return { delim: literal(d.delimiter), quote: literal(d.quote), escape: literal(escape), skip: String(d.skip) };
}

/** The header row's cells, as text. */
async function headerCells(conn: DuckDBConnection, path: string, options: Options): Promise<(string | null)[]> {
  const reader = await conn.runAndReadAll(`SELECT * FROM read_csv(${literal(path)}${render({ ...options, header: 'false', all_varchar: 'true' })}) LIMIT 1`);
  return (reader.getRowsJS()[0] ?? []) as (string | null)[];
}

/** `%d.%m.%Y` → `dd.mm.yyyy`. */
function shownFormat(format: string): string {
  return format.replace('%d', 'dd').replace('%m', 'mm').replace('%Y', 'yyyy').replace('%y', 'yy').replace('%H', 'hh').replace('%M', 'mm').replace('%S', 'ss');
}

/** A format in which day and month could swap (`01/02/2026`): such columns are typed by infer-text.ts, not by the sniffer. */
function ambiguous(format: string | null): boolean {
  return format !== null && /^%[dm][/-]%[md][/-]%[Yy]/.test(format);
}

const ATTEMPTS: { options: Options; note: string | null }[] = [
  { options: {}, note: null },
  { options: { strict_mode: 'false' }, note: 'strict_mode=false' },
  { options: { strict_mode: 'false', null_padding: 'true' }, note: 'strict_mode=false, null_padding=true' },
];

export async function loadCsv(conn: DuckDBConnection, table: string, path: string, tsv: boolean): Promise<Loaded> {
  const attempts = [...ATTEMPTS];
  const forced: Options = tsv ? { delim: literal('\t') } : {};
  let firstError: unknown = null;
  for (let a = 0; a <= attempts.length; a += 1) {
    let attempt = attempts[a];
    if (attempt === undefined) {
      // Last: our own look at the first lines for the delimiter.
      const head = (await readFile(path)).subarray(0, HEAD_BYTES).toString('utf8');
      const delim = tsv ? '\t' : sniffDelimiter(head);
      attempt = { options: { delim: literal(delim), quote: literal('"'), strict_mode: 'false', null_padding: 'true' }, note: `delim=${JSON.stringify(delim)}, strict_mode=false, null_padding=true` };
    }
    const options = { ...forced, ...attempt.options };
    let dialect: Dialect;
    try {
      dialect = await sniff(conn, path, options);
    } catch (err) {
      firstError ??= err;
      continue;
    }
    try {
      const loaded = await readWith(conn, table, path, { ...options, ...dialectOptions(dialect) }, dialect);
      if (attempt.note !== null) loaded.notes.unshift(`DuckDB's CSV sniffer refused the file with its default settings: read with ${attempt.note}`);
      return loaded;
    } catch (err) {
      firstError ??= err;
      await conn.run(`DROP TABLE IF EXISTS ${ident(table)}`);
    }
  }
  throw new KowalskiError('KW_ERR_DATA_LOAD', messageOf(firstError), { cause: firstError });
}

async function readWith(conn: DuckDBConnection, table: string, path: string, options: Options, dialect: Dialect): Promise<Loaded> {
  const notes: string[] = [];
  if (dialect.skip > 0) notes.push(`the first ${dialect.skip} line${dialect.skip === 1 ? '' : 's'} did not fit the table below ${dialect.skip === 1 ? 'it' : 'them'} and ${dialect.skip === 1 ? 'was' : 'were'} skipped`);
  let names: string[];
  if (dialect.header) {
    const raw = await headerCells(conn, path, options);
    names = columnNames(raw);
    notes.push(...renameNotes(raw, names, (i) => `column ${i + 1}`));
  } else {
    names = columnNames(dialect.columns.map(() => null));
    notes.push(`no header row: the columns are named ${names.length > 1 ? `column_1…column_${names.length}` : 'column_1'}`);
  }
  const types: string[] = [];
  dialect.columns.forEach((c, i) => {
    const name = names[i];
    if (name === undefined) return;
    if ((c.type === 'DATE' && ambiguous(dialect.dateFormat)) || (c.type.startsWith('TIMESTAMP') && ambiguous(dialect.timestampFormat))) {
      types.push(`${literal(name)}: 'VARCHAR'`);
    }
  });
  const read = (extra: Options): string => `CREATE TABLE ${ident(table)} AS SELECT * FROM read_csv(${literal(path)}${render({
    ...options,
    header: dialect.header ? 'true' : 'false',
    names: `[${names.map(literal).join(', ')}]`,
    ...(types.length > 0 ? { types: `{${types.join(', ')}}` } : {}),
    ...extra,
  })})`;
  try {
    await conn.run(read({}));
  } catch {
    await conn.run(`DROP TABLE IF EXISTS ${ident(table)}`);
    await conn.run(read({ all_varchar: 'true' }));
    notes.push('types sniffed on the first rows did not fit later rows: every column was read as text, then typed over all rows');
  }
  const columns = await tableColumns(conn, table);
  for (const c of columns) {
    if (c.type === 'DATE' && dialect.dateFormat !== null && dialect.dateFormat !== '%Y-%m-%d') notes.push(`\`${c.name}\`: dates ${shownFormat(dialect.dateFormat)} read as DATE`);
    if (c.type === 'TIMESTAMP' && dialect.timestampFormat !== null && !dialect.timestampFormat.startsWith('%Y-%m-%d')) notes.push(`\`${c.name}\`: date-times ${shownFormat(dialect.timestampFormat)} read as TIMESTAMP`);
  }
  const typed = await typeColumns(conn, table, columns, { delimiter: dialect.delimiter, doubles: true });
  return { columns: typed.columns, notes: [...notes, ...typed.notes] };
}
