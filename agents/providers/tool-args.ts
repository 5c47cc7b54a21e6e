/**
 * Tool-call arguments as a provider delivered them → ToolCall fields. Small models write
 * broken JSON; that is the tool loop's to correct (it tells the model), so it never throws.
 */
import type { ToolCall } from '../types.js';
import { messageOf } from '../../core/index.js';

export type ParsedArguments = Pick<ToolCall, 'arguments' | 'argumentsError' | 'rawArguments'>;

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * An object is taken as is; text is parsed (empty text is `{}`: a call with no arguments).
 * Anything that is not a JSON object gives `arguments: {}`, `argumentsError` and the
 * arguments as written in `rawArguments`.
 */
export function parseToolArguments(value: unknown): ParsedArguments {
  if (isObject(value)) return { arguments: value };
  if (typeof value !== 'string') {
    return { arguments: {}, argumentsError: `the arguments must be a JSON object, not ${kindOf(value)}`, rawArguments: JSON.stringify(value) ?? String(value) };
  }
  if (value.trim() === '') return { arguments: {} };
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch (err) {
    return { arguments: {}, argumentsError: `the arguments are not valid JSON (${messageOf(err)})`, rawArguments: value };
  }
  if (!isObject(parsed)) return { arguments: {}, argumentsError: `the arguments must be a JSON object, not ${kindOf(parsed)}`, rawArguments: value };
  return { arguments: parsed };
}
