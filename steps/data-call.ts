/**
 * The typed answer of a data tool call (`list_tables`, `describe_table`, `query_sql`):
 * the MCP result's `structuredContent`, or the same JSON from its text when a server
 * sent only text.
 */
import { KowalskiError } from '../core/index.js';
import type { ToolOutput } from '../agents/index.js';

export function structuredOf<T>(output: ToolOutput, tool: string): T {
  if (output.structured !== undefined && output.structured !== null) return output.structured as T;
  try {
    const parsed: unknown = JSON.parse(output.content);
    if (parsed !== null && typeof parsed === 'object') return parsed as T;
  } catch {
    // fall through to the error below
  }
  throw new KowalskiError('KW_ERR_TOOL_FAILED', `the data tool's ${tool} answered without a typed result: ${output.content.slice(0, 200)}`);
}
