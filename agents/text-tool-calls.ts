/**
 * Tool calls written as text, for models that cannot (or do not) use a provider's tool
 * field: the documented format the prompt teaches, and its strict parser.
 *
 * A reply is a tool call only when the WHOLE reply is one call: a `<tool_call>` block
 * holding `{"name": …, "arguments": {…}}` (optionally inside a code fence), or that JSON
 * object alone — the shape small models print when their native call fails. Only the
 * model's own completion is ever parsed: text that looks like a call inside a file, a
 * fetched page or a tool result never reaches this parser, so it is never executed.
 */
import type { ToolCall, ToolSpec } from './types.js';
import { messageOf } from '../core/index.js';

export const TOOL_CALL_OPEN = '<tool_call>';
export const TOOL_CALL_CLOSE = '</tool_call>';

/** The system-prompt section that teaches the format and lists the tools. */
export function textToolInstructions(tools: readonly ToolSpec[]): string {
  const list = tools.map((t) => `- ${t.name}: ${t.description}\n  arguments (JSON Schema): ${JSON.stringify(t.inputSchema)}`).join('\n');
  return [
    '## Tools',
    '',
    'You may call these tools:',
    '',
    list,
    '',
    'To call a tool, reply with exactly this and nothing else:',
    '',
    TOOL_CALL_OPEN,
    '{"name": "<tool name>", "arguments": {<the arguments as JSON>}}',
    TOOL_CALL_CLOSE,
    '',
    'Call one tool at a time. The result comes back in a <tool_result> block.',
    'When you have what you need, reply with your final answer only, with no <tool_call> block.',
  ].join('\n');
}

/** How a tool's result is handed back to a model in text mode (as a user message). */
export function textToolResult(name: string, content: string, isError: boolean): string {
  const status = isError ? ' error="true"' : '';
  return `<tool_result name="${name}"${status}>\n${content}\n</tool_result>`;
}

export type TextToolParse =
  | { kind: 'answer' }
  | { kind: 'call'; call: ToolCall }
  /** The reply tried to call a tool but broke the format: tell the model what was wrong. */
  | { kind: 'malformed'; call: ToolCall };

const FENCED = /^```[a-zA-Z]*\s*\n?([\s\S]*?)\n?```$/;
const TAGGED = /^<tool_call>\s*([\s\S]*?)\s*<\/tool_call>$/;

function unfence(text: string): string {
  const m = FENCED.exec(text);
  return m === null ? text : (m[1] ?? '').trim();
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function malformed(id: string, raw: string, why: string, name = ''): TextToolParse {
  return { kind: 'malformed', call: { id, name, arguments: {}, argumentsError: why, rawArguments: raw } };
}

/** `{"name": "...", "arguments": {...}}` → a call; anything else → why not. */
function callFromJson(id: string, body: string): { kind: 'call'; call: ToolCall } | string {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (err) {
    return `the tool call is not valid JSON (${messageOf(err)})`;
  }
  if (!isPlainObject(value) || typeof value.name !== 'string') return 'the tool call must be a JSON object with a "name" string and an "arguments" object';
  const args = value.arguments ?? value.parameters ?? {};
  if (!isPlainObject(args)) return `"arguments" of ${value.name} must be a JSON object`;
  const extra = Object.keys(value).filter((k) => k !== 'name' && k !== 'arguments' && k !== 'parameters');
  if (extra.length > 0) return `the tool call has unknown keys: ${extra.join(', ')}`;
  return { kind: 'call', call: { id, name: value.name, arguments: args } };
}

/**
 * Parse a completion. `offered` decides whether a bare JSON object is a call: only when
 * it names a tool of this step (otherwise an answer that happens to be JSON stays an answer).
 */
export function parseTextToolCall(completion: string, id: string, offered: ReadonlySet<string>): TextToolParse {
  const text = unfence(completion.trim());
  const tagged = TAGGED.exec(text);
  if (tagged !== null) {
    const body = tagged[1] ?? '';
    if (body.includes(TOOL_CALL_OPEN)) return malformed(id, text, 'reply with one <tool_call> block at a time');
    const parsed = callFromJson(id, body);
    return typeof parsed === 'string' ? malformed(id, body, parsed) : parsed;
  }
  if (text.includes(TOOL_CALL_OPEN)) {
    return malformed(id, text, 'a tool call must be the whole reply: one <tool_call> block with nothing before or after it, closed with </tool_call>');
  }
  if (text.startsWith('{') && text.endsWith('}')) {
    const parsed = callFromJson(id, text);
    if (typeof parsed !== 'string' && offered.has(parsed.call.name)) return parsed;
  }
  return { kind: 'answer' };
}
