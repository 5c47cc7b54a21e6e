/** The zod shapes of the data tool's inputs and outputs: agents/data-types.ts, as the MCP server declares and checks them. */
import { z } from 'zod';
import { MAX_ROWS_CAP } from './query.js';

const dataValue = z.union([z.string(), z.number(), z.boolean(), z.null()]);

const tableInfo = z.object({
  name: z.string().describe('the SQL name of the table'),
  source: z.string().describe('the file, relative to the data folder'),
  sheet: z.string().optional().describe('the sheet of a workbook'),
  rowCount: z.number().int(),
  columnCount: z.number().int(),
});

export const listTablesInput = {};

export const listTablesOutput = {
  tables: z.array(tableInfo),
  skipped: z.array(z.object({ source: z.string(), error: z.string() })).describe('files that look like data but could not be read, with why'),
};

export const describeTableInput = {
  table: z.string().min(1).describe('a table name from list_tables, e.g. "sales_eu"'),
};

export const describeTableOutput = {
  table: tableInfo,
  columns: z.array(z.object({
    name: z.string(),
    type: z.string(),
    nulls: z.number().int(),
    distinct: z.number().int().describe('distinct non-null values (approximate beyond 10,000 rows)'),
    min: dataValue,
    max: dataValue,
    mean: z.number().nullable().describe('numeric columns only'),
    top: z.array(z.object({ value: dataValue, count: z.number().int() })).describe('the most frequent values, for columns whose values repeat'),
  })),
  notes: z.array(z.string()).describe('how the file was read: skipped title or total rows, text read as NULL, number formats'),
};

export const querySqlInput = {
  sql: z.string().min(1).describe('one read-only DuckDB statement, e.g. SELECT "Region", sum("Menge" * "Preis") FROM sales_eu GROUP BY 1'),
  max_rows: z.number().int().positive().optional().describe(`rows returned at most (default 1000, at most ${MAX_ROWS_CAP})`),
};

export const querySqlOutput = {
  columns: z.array(z.object({ name: z.string(), type: z.string() })),
  rows: z.array(z.array(dataValue)),
  rowCount: z.number().int().describe('rows returned'),
  truncated: z.boolean().describe('true when more rows (or bytes) than the limits allow: the rest were not returned'),
};
