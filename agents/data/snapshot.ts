/**
 * One loaded, locked view of the root: a fresh in-memory DuckDB holding a table per file
 * (per sheet of a workbook), then locked so that the SQL a model writes can read those
 * tables and nothing else: `enable_external_access=false` (no file, no URL, no ATTACH,
 * no COPY, no INSTALL), extensions neither installed nor loaded on their own, community
 * extensions refused, and `lock_configuration=true` so no SET undoes it. External access
 * cannot be turned back on, so a change under the root means a new snapshot.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import type { DuckDBConnection } from '@duckdb/node-api';
import { KowalskiError, messageOf } from '../../core/index.js';
import type { DataColumn, ListTablesResult, TableInfo } from '../data-types.js';
import type { DataFile, Discovery } from './discover.js';
import { loadCsv } from './load-csv.js';
import { loadJson, loadParquet } from './load-other.js';
import { hasCells, loadSheet, readWorkbook } from './load-xlsx.js';
import type { SheetData } from './load-xlsx.js';
import { tableNames } from './names.js';
import { ident } from './sql.js';
import { tableRowCount } from './table.js';
import type { Loaded } from './table.js';

/** A workbook larger than this is not read (read-excel-file holds all of it in memory): 64 MiB. */
export const MAX_XLSX_BYTES = 64 * 1024 * 1024;

export interface LoadedTable {
  info: TableInfo;
  columns: DataColumn[];
  notes: string[];
}

export interface Snapshot {
  instance: DuckDBInstance;
  conn: DuckDBConnection;
  /** By table name, in source path order. */
  tables: Map<string, LoadedTable>;
  skipped: ListTablesResult['skipped'];
  fingerprint: string;
  /** Where DuckDB may spill when a query outgrows memory; removed on close. */
  tempDir: string;
}

interface Source {
  file: DataFile;
  sheet?: SheetData;
}

async function load(conn: DuckDBConnection, table: string, source: Source): Promise<Loaded> {
  const { file } = source;
  if (source.sheet !== undefined) return loadSheet(conn, table, source.sheet);
  switch (file.kind) {
    case 'csv':
    case 'tsv':
      return loadCsv(conn, table, file.abs, file.kind === 'tsv');
    case 'parquet':
      return loadParquet(conn, table, file.abs);
    case 'json':
    case 'ndjson':
      return loadJson(conn, table, file.abs, file.kind === 'ndjson');
    case 'xlsx':
      throw new KowalskiError('KW_ERR_DATA_LOAD', 'a workbook is loaded sheet by sheet');
    default: {
      const never: never = file.kind;
      throw new KowalskiError('KW_ERR_DATA_LOAD', `unknown kind ${String(never)}`);
    }
  }
}

/** Load every file of the discovery into a new DuckDB, then lock it. */
export async function buildSnapshot(discovery: Discovery): Promise<Snapshot> {
  const tempDir = path.join(os.tmpdir(), `kowalski-data-${process.pid}-${randomBytes(6).toString('hex')}`);
  const instance = await DuckDBInstance.create(':memory:', {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    allow_community_extensions: 'false',
    temp_directory: tempDir,
  });
  const conn = await instance.connect();
  try {
    const skipped = [...discovery.skipped];
    const sources: Source[] = [];
    for (const file of discovery.files) {
      if (file.kind !== 'xlsx') {
        sources.push({ file });
        continue;
      }
      if (file.size > MAX_XLSX_BYTES) {
        skipped.push({ source: file.rel, error: `a workbook over ${MAX_XLSX_BYTES / 1024 / 1024} MiB is not read (save it as CSV)` });
        continue;
      }
      try {
        for (const sheet of await readWorkbook(file.abs)) if (hasCells(sheet)) sources.push({ file, sheet });
      } catch (err) {
        skipped.push({ source: file.rel, error: messageOf(err) });
      }
    }
    const names = tableNames(sources.map((s) => (s.sheet === undefined ? { rel: s.file.rel } : { rel: s.file.rel, sheet: s.sheet.name })));
    const tables = new Map<string, LoadedTable>();
    for (const [i, source] of sources.entries()) {
      const name = names[i] ?? `t_${i}`;
      try {
        const loaded = await load(conn, name, source);
        const info: TableInfo = {
          name,
          source: source.file.rel,
          ...(source.sheet === undefined ? {} : { sheet: source.sheet.name }),
          rowCount: await tableRowCount(conn, name),
          columnCount: loaded.columns.length,
        };
        tables.set(name, { info, columns: loaded.columns, notes: loaded.notes });
      } catch (err) {
        await conn.run(`DROP TABLE IF EXISTS ${ident(name)}`).catch(() => undefined);
        const where = source.sheet === undefined ? '' : `sheet "${source.sheet.name}": `;
        skipped.push({ source: source.file.rel, error: `${where}${messageOf(err)}` });
      }
    }
    await conn.run('SET enable_external_access = false');
    await conn.run('SET lock_configuration = true');
    skipped.sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : 0));
    return { instance, conn, tables, skipped, fingerprint: discovery.fingerprint, tempDir };
  } catch (err) {
    conn.closeSync();
    instance.closeSync();
    throw err;
  }
}

export async function closeSnapshot(s: Snapshot): Promise<void> {
  s.conn.closeSync();
  s.instance.closeSync();
  await rm(s.tempDir, { recursive: true, force: true });
}
