/** What a loader hands back for one table, and how a loaded table's columns and size are read. */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { DataColumn } from '../data-types.js';
import { ident, literal } from './sql.js';

export interface Loaded {
  columns: DataColumn[];
  /** What the loader did that a reader should know, in plain words. */
  notes: string[];
}

/** The table's columns and their DuckDB types, in order. */
export async function tableColumns(conn: DuckDBConnection, table: string): Promise<DataColumn[]> {
  const reader = await conn.runAndReadAll(
    `SELECT column_name, data_type FROM duckdb_columns() WHERE database_name = current_database() AND schema_name = 'main' AND table_name = ${literal(table)} ORDER BY column_index`,
  );
  return reader.getRowsJS().map(([name, type]) => ({ name: String(name), type: String(type) }));
}

export async function tableRowCount(conn: DuckDBConnection, table: string): Promise<number> {
  const reader = await conn.runAndReadAll(`SELECT count(*) FROM ${ident(table)}`);
  return Number(reader.getRowsJS()[0]?.[0] ?? 0);
}
