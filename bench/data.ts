/**
 * The data tool's profile (what `table_profile` asks for: every table's columns, types
 * and statistics, after loading the file) against DuckDB alone on the same file:
 * `SUMMARIZE SELECT * FROM read_csv(…)` in a fresh in-memory database, which reads and
 * summarises the file in one statement. Measured for a 1,000,000-row CSV, in process
 * (`openDataSource` + `listTables` + `describeTable`) and through MCP as the engine uses
 * it (`kowalski mcp serve data` started as a child, a client over stdio); and for a
 * 50,000-row xlsx, whose floor is SUMMARIZE over the same rows saved as CSV (DuckDB
 * cannot read xlsx without downloading an extension).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import writeXlsxFile from 'write-excel-file/node';
import { openDataSource } from '../agents/data/index.js';
import { removeDir, tempDir } from './setup.js';
import { now } from './stats.js';

export const CSV_ROWS = 1_000_000;
export const XLSX_ROWS = 50_000;

export interface DataFiles {
  dir: string;
  /** Folders holding one file each (the data tool serves a folder). */
  csvRoot: string;
  xlsxRoot: string;
  csv: string;
  /** The xlsx's rows as CSV: the floor for the xlsx. */
  xlsxAsCsv: string;
  bytes: { csv: number; xlsx: number };
}

const REGIONS = ['Nord', 'Süd', 'Ost', 'West', 'Mitte'];

/** Rows like a sales ledger: id, date, region, customer, quantity, amount with cents. */
const LEDGER_SQL = (rows: number): string => `
  SELECT i AS id,
         DATE '2026-01-01' + CAST(i % 365 AS INTEGER) AS ordered_at,
         ['${REGIONS.join("','")}'][1 + i % 5] AS region,
         'customer ' || (i * 7919 % 1000) AS customer,
         1 + i * 31 % 40 AS quantity,
         CAST((i * 104729 % 100000) / 100.0 AS DECIMAL(12,2)) AS amount
  FROM range(${rows}) t(i)`;

export async function makeDataFiles(): Promise<DataFiles> {
  const dir = tempDir('data');
  const csvRoot = path.join(dir, 'csv');
  const xlsxRoot = path.join(dir, 'xlsx');
  fs.mkdirSync(csvRoot);
  fs.mkdirSync(xlsxRoot);
  const csv = path.join(csvRoot, 'ledger.csv');
  const xlsxAsCsv = path.join(dir, 'ledger-small.csv');
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    await conn.run(`COPY (${LEDGER_SQL(CSV_ROWS)}) TO '${csv}' (HEADER, DELIMITER ',')`);
    await conn.run(`COPY (${LEDGER_SQL(XLSX_ROWS)}) TO '${xlsxAsCsv}' (HEADER, DELIMITER ',')`);
    const reader = await conn.runAndReadAll(LEDGER_SQL(XLSX_ROWS));
    const header = reader.columnNames().map((value) => ({ value, fontWeight: 'bold' as const }));
    const rows = reader.getRows().map((r) => [
      { type: Number, value: Number(r[0]) },
      { type: Date, value: new Date(`${String(r[1])}T00:00:00Z`), format: 'yyyy-mm-dd' },
      { type: String, value: String(r[2]) },
      { type: String, value: String(r[3]) },
      { type: Number, value: Number(r[4]) },
      { type: Number, value: Number(String(r[5])) },
    ]);
    await writeXlsxFile([header, ...rows], { sheet: 'Ledger' }).toFile(path.join(xlsxRoot, 'ledger.xlsx'));
  } finally {
    conn.closeSync();
    db.closeSync();
  }
  return { dir, csvRoot, xlsxRoot, csv, xlsxAsCsv, bytes: { csv: fs.statSync(csv).size, xlsx: fs.statSync(path.join(xlsxRoot, 'ledger.xlsx')).size } };
}

export function removeDataFiles(files: DataFiles): void {
  removeDir(files.dir);
}

/** DuckDB alone: SUMMARIZE over the file, in a fresh in-memory database. ms. */
export async function summarizeOnce(file: string): Promise<number> {
  const t0 = now();
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  try {
    await conn.runAndReadAll(`SUMMARIZE SELECT * FROM read_csv('${file}')`);
  } finally {
    conn.closeSync();
    db.closeSync();
  }
  return now() - t0;
}

/** The data tool in process: open, list, describe every table, close. ms. */
export async function profileOnce(root: string): Promise<number> {
  const t0 = now();
  const source = await openDataSource({ root });
  try {
    for (const t of (await source.listTables()).tables) await source.describeTable(t.name);
  } finally {
    await source.close();
  }
  return now() - t0;
}

/** The data tool as the engine uses it: a `kowalski mcp serve data` child, over stdio. ms. */
export async function profileOverMcpOnce(root: string): Promise<number> {
  const entry = fileURLToPath(new URL(`../bin/kowalski${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));
  const t0 = now();
  const client = new Client({ name: 'kowalski-bench', version: '0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [...process.execArgv, entry, 'mcp', 'serve', 'data', '--root', root], stderr: 'ignore' }));
  try {
    const listed = await client.callTool({ name: 'list_tables', arguments: {} });
    const tables = (listed.structuredContent as { tables: Array<{ name: string }> }).tables;
    for (const t of tables) await client.callTool({ name: 'describe_table', arguments: { table: t.name } }, undefined, { timeout: 600_000 });
  } finally {
    await client.close();
  }
  return now() - t0;
}
