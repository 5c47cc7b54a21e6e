/**
 * Parquet, JSON and NDJSON files → a table, through DuckDB (`read_parquet`,
 * `read_json_auto`). Parquet keeps the types its writer chose; JSON numbers with at most
 * 6 decimals become DECIMAL (exact sums), like CSV's.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { typeColumns } from './infer-text.js';
import { ident, literal } from './sql.js';
import { tableColumns } from './table.js';
import type { Loaded } from './table.js';

export async function loadParquet(conn: DuckDBConnection, table: string, path: string): Promise<Loaded> {
  await conn.run(`CREATE TABLE ${ident(table)} AS SELECT * FROM read_parquet(${literal(path)})`);
  return { columns: await tableColumns(conn, table), notes: [] };
}

/** `.json` (an array of objects, or one object per line) and `.ndjson`/`.jsonl` (one per line). */
export async function loadJson(conn: DuckDBConnection, table: string, path: string, lines: boolean): Promise<Loaded> {
  const format = lines ? ", format='newline_delimited'" : '';
  await conn.run(`CREATE TABLE ${ident(table)} AS SELECT * FROM read_json_auto(${literal(path)}${format})`);
  const typed = await typeColumns(conn, table, await tableColumns(conn, table), { doubles: true });
  return typed;
}
