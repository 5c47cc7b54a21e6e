/**
 * A tool call's arguments as the chat log keeps them: whole up to MAX_LOGGED_ARGUMENTS_CHARS
 * of JSON, else replaced by a marker that says they were cut, their size, and their start.
 * The tool itself is called with the arguments as the model gave them; only the record is
 * bounded, so one oversized call (a refused 12 MiB note) cannot make a session's log, and
 * every read of it, that large.
 */
import type { RecordedToolCall } from '../../actors/index.js';

/** The most characters of JSON a tool call's arguments keep in the chat log: 64 KiB. */
export const MAX_LOGGED_ARGUMENTS_CHARS = 64 * 1024;
/** Characters of the cut arguments' JSON kept in the marker, to show what the call was. */
const KEPT_HEAD_CHARS = 2048;

/** The key of the marker that replaces cut arguments. */
export const CUT_MARKER = 'kowalski_cut';

/** `args` when small enough, else `{ kowalski_cut: "…", original_chars, head }`. */
export function loggedArguments(args: Record<string, unknown>): Record<string, unknown> {
  const json = JSON.stringify(args);
  if (json.length <= MAX_LOGGED_ARGUMENTS_CHARS) return args;
  return {
    [CUT_MARKER]: `the arguments were ${json.length} characters of JSON; the chat log keeps at most ${MAX_LOGGED_ARGUMENTS_CHARS}, so only their first ${KEPT_HEAD_CHARS} are kept (in head)`,
    original_chars: json.length,
    head: json.slice(0, KEPT_HEAD_CHARS),
  };
}

/** A text the model sent (raw arguments, or why they did not parse) cut at the same bound, with a note. */
function loggedText(text: string): string {
  if (text.length <= MAX_LOGGED_ARGUMENTS_CHARS) return text;
  return `${text.slice(0, KEPT_HEAD_CHARS)}… [cut: ${text.length} characters; the chat log keeps at most ${MAX_LOGGED_ARGUMENTS_CHARS}]`;
}

/** A model's tool call as the log records it: its arguments (and raw text) bounded. */
export function loggedToolCall(call: RecordedToolCall): RecordedToolCall {
  const out: RecordedToolCall = { ...call, arguments: loggedArguments(call.arguments) };
  if (call.rawArguments !== undefined) out.rawArguments = loggedText(call.rawArguments);
  if (call.argumentsError !== undefined) out.argumentsError = loggedText(call.argumentsError);
  return out;
}
