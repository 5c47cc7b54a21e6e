/**
 * What the data tool (`kowalski mcp serve data`) answers, as `structuredContent` of its
 * MCP tool results (the text content carries the same JSON), and the files the data
 * steps write from it. One contract for the server, the steps that read it
 * (`table_profile`, `sql_batch`, `xlsx_report`) and the app.
 */
export type { ColumnProfile, DataColumn, DataValue, DescribeTableResult, ListTablesResult, QueryResult, SqlBatchFile, SqlBatchQuery, TableInfo, TableProfileFile } from '../contract/data-files.js';

/** The names under which steps and models reach the data tool (bound to the run's `inputs/` folder). */
export const DATA_TOOL_NAMES = ['list_tables', 'describe_table', 'query_sql'] as const;
export type DataToolName = (typeof DATA_TOOL_NAMES)[number];
