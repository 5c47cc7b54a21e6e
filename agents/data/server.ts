/**
 * The data tool as an MCP server: `list_tables`, `describe_table` and `query_sql` over one
 * DataSource. A result is `structuredContent` of the types in agents/data-types.ts plus
 * one text item with the same JSON; a failure is a tool result with `isError: true`
 * whose text is `[KW_ERR_…] message`.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toPlainError } from '../../core/index.js';
import type { DataSource } from './source.js';
import {
  describeTableInput, describeTableOutput, listTablesInput, listTablesOutput, querySqlInput, querySqlOutput,
} from './schemas.js';
import { DEFAULT_MAX_ROWS, MAX_ROWS_CAP } from './query.js';

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

async function answer(work: () => Promise<object>): Promise<CallToolResult> {
  try {
    const result = await work();
    return { structuredContent: result as Record<string, unknown>, content: [{ type: 'text', text: JSON.stringify(result) }] };
  } catch (err) {
    const plain = toPlainError(err, 'KW_ERR_DATA_SQL');
    return { isError: true, content: [{ type: 'text', text: `[${plain.code}] ${plain.message}` }] };
  }
}

/** A new MCP server (not yet connected) answering from `source`. */
export function createDataServer(source: DataSource, version: string): McpServer {
  const server = new McpServer({ name: 'kowalski-data', version }, { capabilities: { tools: {} } });
  server.registerTool('list_tables', {
    title: 'List tables',
    description: 'List the SQL tables of the data folder — one per CSV, TSV, Parquet, JSON or NDJSON file and one per sheet of an xlsx workbook — with the file each comes from, its sheet, rows and columns; and the files that could not be read. Start here.',
    inputSchema: listTablesInput,
    outputSchema: listTablesOutput,
    annotations: READ_ONLY,
  }, () => answer(() => source.listTables()));
  server.registerTool('describe_table', {
    title: 'Describe a table',
    description: 'The columns of one table with their types and statistics (nulls, distinct values, min, max, mean, most frequent values), and notes on how the file was read (title or total rows skipped, number and date formats, text read as NULL). Use the exact column names it gives in query_sql, in double quotes when they have capitals, spaces or symbols.',
    inputSchema: describeTableInput,
    outputSchema: describeTableOutput,
    annotations: READ_ONLY,
  }, (args) => answer(() => source.describeTable(args.table)));
  server.registerTool('query_sql', {
    title: 'Query with SQL',
    description: `Run one read-only DuckDB SQL statement (SELECT, WITH … SELECT, VALUES, DESCRIBE, SUMMARIZE) over the tables and get the rows. Sums of DECIMAL columns are exact. At most max_rows rows (default ${DEFAULT_MAX_ROWS}, up to ${MAX_ROWS_CAP}) and about 2 MB come back; "truncated" says when there were more — aggregate or add LIMIT. A query is stopped after 30 s. Nothing can be written, attached, installed or set.`,
    inputSchema: querySqlInput,
    outputSchema: querySqlOutput,
    annotations: READ_ONLY,
  }, (args) => answer(() => source.querySql(args.sql, args.max_rows)));
  return server;
}
