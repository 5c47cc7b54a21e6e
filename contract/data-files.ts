/**
 * What the data tool (`kowalski mcp serve data`) answers, and the JSON files the data steps
 * (`table_profile`, `sql_batch`) write from it beside their Markdown artifact, which the app
 * shows as tables.
 */

/**
 * A value as the data tool returns it, JSON-typed: integers, decimals and doubles as
 * numbers (an integer beyond ±2^53, NaN or ±Infinity as a string), dates as
 * `YYYY-MM-DD`, timestamps as `YYYY-MM-DD HH:MM:SS[.ffffff]`, times as `HH:MM:SS`,
 * booleans as booleans, NULL as null, anything else (lists, structs, intervals,
 * blobs) as DuckDB's text for it.
 */
export type DataValue = string | number | boolean | null;

/** A result or table column: its name and DuckDB type (`BIGINT`, `DECIMAL(18,2)`, `DOUBLE`, `VARCHAR`, `DATE`, `TIMESTAMP`, `BOOLEAN`…). */
export interface DataColumn {
  name: string;
  type: string;
}

/** One table of the data root: a file, or one sheet of a workbook. */
export interface TableInfo {
  /** The SQL name (lower case, `[a-z0-9_]`, derived from the file and sheet names). */
  name: string;
  /** The file, relative to the root, `/`-separated. */
  source: string;
  /** The sheet of a workbook. */
  sheet?: string;
  rowCount: number;
  columnCount: number;
}

/** `list_tables`. */
export interface ListTablesResult {
  tables: TableInfo[];
  /** Files under the root that look like data but could not be read, with why. */
  skipped: Array<{ source: string; error: string }>;
}

/** One column's statistics (`describe_table`). */
export interface ColumnProfile {
  name: string;
  type: string;
  nulls: number;
  /** Distinct non-null values (approximate beyond 10,000, like DuckDB's SUMMARIZE). */
  distinct: number;
  min: DataValue;
  max: DataValue;
  /** Numeric columns only. */
  mean: number | null;
  /** The most frequent values (at most 5), most frequent first. */
  top: Array<{ value: DataValue; count: number }>;
}

/** `describe_table`. */
export interface DescribeTableResult {
  table: TableInfo;
  columns: ColumnProfile[];
  /**
   * What the loader did that a reader should know, in plain words: title rows above the
   * header skipped, a total row after a blank row left out, text cells such as `n/a`
   * read as NULL in a numeric column, decimal commas or thousands separators read.
   */
  notes: string[];
}

/** `query_sql`. */
export interface QueryResult {
  columns: DataColumn[];
  rows: DataValue[][];
  /** Rows returned (after truncation). */
  rowCount: number;
  /** More rows (or bytes) than the limits allow: the rest were not returned. */
  truncated: boolean;
}

/** The JSON file `table_profile` writes beside its Markdown artifact (`<output stem>.json`). */
export interface TableProfileFile {
  version: 1;
  kind: 'table_profile';
  tables: DescribeTableResult[];
  skipped: ListTablesResult['skipped'];
}

/** One query of a `sql_batch` run, with its result exactly as the data tool returned it. */
export interface SqlBatchQuery extends QueryResult {
  /** 1-based, in the order of the plan. */
  index: number;
  /** The heading above the ```sql block (or `Query N` when there is none). */
  question: string;
  sql: string;
}

/** The JSON file `sql_batch` writes beside its Markdown artifact (`<output stem>.json`). */
export interface SqlBatchFile {
  version: 1;
  kind: 'sql_batch';
  queries: SqlBatchQuery[];
}

/** Either file, as the app reads one (by its `kind`). */
export type DataStepFile = SqlBatchFile | TableProfileFile;
