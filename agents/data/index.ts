/**
 * The data tool: every spreadsheet under a root folder (CSV, TSV, Parquet, JSON, NDJSON,
 * each sheet of an xlsx) as a SQL table in a locked, in-memory DuckDB, served as an MCP
 * server (`kowalski mcp serve data`) or opened in process. Not exported by agents/index.ts:
 * loading DuckDB is for those who ask for it. docs/data-tool.md is the contract.
 */
export { openDataSource } from './source.js';
export type { DataSource, DataSourceOptions } from './source.js';
export { sqlName, tableNames, columnNames } from './names.js';
export type { TableSource } from './names.js';
export { DEFAULT_MAX_ROWS, MAX_ROWS_CAP, DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS } from './query.js';
export { serveData } from './serve.js';
export type { ServeDataOptions } from './serve.js';
