/**
 * An MCP tool result → the text a model reads. Models here take text only, so binary
 * content is named and measured but never inlined (base64 would only burn context).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** What `Client.callTool` resolves to: a current result, or the pre-2024-11 `{toolResult}` shape. */
export type McpToolResult = Awaited<ReturnType<Client['callTool']>>;

function base64Bytes(data: string): number {
  const padding = data.endsWith('==') ? 2 : data.endsWith('=') ? 1 : 0;
  return Math.max(0, Math.floor((data.length * 3) / 4) - padding);
}

function omitted(kind: string, mimeType: unknown, data: unknown): string {
  const bytes = typeof data === 'string' ? base64Bytes(data) : 0;
  return `[${kind}: ${typeof mimeType === 'string' ? mimeType : 'unknown type'}, ${bytes} bytes omitted]`;
}

function sameJson(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

/**
 * Text items joined by newlines; images and audio as `[image: mime, N bytes omitted]`;
 * an embedded resource as its text; `structuredContent` as JSON unless a text item
 * already carries the same JSON (the spec asks servers to send both).
 */
export function resultText(result: McpToolResult): string {
  if (!Array.isArray(result.content)) return 'toolResult' in result ? JSON.stringify(result.toolResult) : '';
  const parts: string[] = [];
  for (const item of result.content) {
    switch (item.type) {
      case 'text':
        parts.push(item.text);
        break;
      case 'image':
      case 'audio':
        parts.push(omitted(item.type, item.mimeType, item.data));
        break;
      case 'resource':
        parts.push('text' in item.resource && typeof item.resource.text === 'string'
          ? item.resource.text
          : omitted(`resource ${item.resource.uri}`, item.resource.mimeType, 'blob' in item.resource ? item.resource.blob : undefined));
        break;
      case 'resource_link':
        parts.push(`[resource link: ${item.name} ${item.uri}${item.description === undefined ? '' : ` — ${item.description}`}]`);
        break;
      default:
        parts.push(`[${(item as { type: string }).type} content omitted]`);
    }
  }
  const structured = result.structuredContent;
  if (structured !== undefined && !result.content.some((item) => item.type === 'text' && sameJson(item.text, structured))) {
    parts.push(JSON.stringify(structured));
  }
  return parts.join('\n');
}
