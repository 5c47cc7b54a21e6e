/** Calling the tools of kowalski's own MCP servers (the data tool, the Rookery) from the SDK's real Client. */
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** The one text item of a tool result. */
export function textOf(result: Awaited<ReturnType<Client['callTool']>>): string {
  const content = result.content as { type: string; text?: string }[];
  assert.equal(content.length, 1);
  assert.equal(content[0]?.type, 'text');
  return content[0]?.text ?? '';
}

/** A tool's structured result, after checking that the text content holds the same JSON. */
export async function call<T>(client: Client, name: string, args: Record<string, unknown> = {}): Promise<T> {
  const result = await client.callTool({ name, arguments: args });
  const text = textOf(result);
  assert.notEqual(result.isError, true, text);
  assert.deepEqual(JSON.parse(text), result.structuredContent);
  return result.structuredContent as T;
}

/** A tool's error text (`[KW_ERR_…] message`). */
export async function callError(client: Client, name: string, args: Record<string, unknown>): Promise<string> {
  const result = await client.callTool({ name, arguments: args });
  assert.equal(result.isError, true, textOf(result));
  return textOf(result);
}
