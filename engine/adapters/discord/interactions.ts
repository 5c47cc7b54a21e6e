/**
 * What a verified Discord interaction asks for: PING (type 1), an application command
 * (type 2) whose text is its `message` / `prompt` / `text` / `question` string option (or
 * else its first string option, inside subcommands too), or something kowalski does not
 * answer (components, autocomplete, modals). A command's answer edits the deferred
 * response with the interaction's token, which is good for 15 minutes.
 */
import { KowalskiError } from '../../../core/index.js';
import type { InboundMessage } from '../types.js';

export type DiscordRequest =
  | { kind: 'ping' }
  | { kind: 'command'; message: InboundMessage }
  /** A command with no text to answer: told so at once (only the user sees it). */
  | { kind: 'no-text'; command: string }
  | { kind: 'autocomplete' }
  | { kind: 'other'; type: number };

/** Where the answer goes: kept with the inbound record as `replyTo`. */
export interface DiscordReplyTo {
  token: string;
}

/** Option names read as the text, in this order; otherwise the first string option. */
const TEXT_OPTIONS = ['message', 'prompt', 'text', 'question'];
const STRING_OPTION = 3;
const SNOWFLAKE = /^\d{1,25}$/;
const MAX_DEPTH = 3;

interface CommandOption {
  name: string;
  type: number;
  value?: unknown;
  options?: CommandOption[];
}

export function readDiscordRequest(rawBody: Buffer): DiscordRequest {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new KowalskiError('KW_ERR_BAD_REQUEST', 'a Discord interaction must be JSON');
  }
  if (!isObject(body) || typeof body.type !== 'number') throw new KowalskiError('KW_ERR_BAD_REQUEST', 'a Discord interaction must be a JSON object with a numeric type');
  switch (body.type) {
    case 1:
      return { kind: 'ping' };
    case 2:
      return readCommand(body);
    case 4:
      return { kind: 'autocomplete' };
    default:
      return { kind: 'other', type: body.type };
  }
}

function readCommand(body: Record<string, unknown>): DiscordRequest {
  const { id, token, data } = body;
  if (typeof id !== 'string' || !SNOWFLAKE.test(id)) throw new KowalskiError('KW_ERR_BAD_REQUEST', 'a Discord command interaction must carry its id');
  if (typeof token !== 'string' || token === '' || token.length > 1000) throw new KowalskiError('KW_ERR_BAD_REQUEST', 'a Discord command interaction must carry its token');
  if (!isObject(data) || typeof data.name !== 'string') throw new KowalskiError('KW_ERR_BAD_REQUEST', 'a Discord command interaction must carry data.name');
  const text = textOf(Array.isArray(data.options) ? (data.options as CommandOption[]) : [], 0).trim();
  if (text === '') return { kind: 'no-text', command: data.name };
  const member = isObject(body.member) ? body.member : undefined;
  const user = isObject(member?.user) ? member.user : isObject(body.user) ? body.user : undefined;
  const userId = typeof user?.id === 'string' && SNOWFLAKE.test(user.id) ? user.id : 'unknown';
  const channel = typeof body.channel_id === 'string' && SNOWFLAKE.test(body.channel_id) ? body.channel_id : 'dm';
  const replyTo: DiscordReplyTo = { token };
  return {
    kind: 'command',
    message: {
      deliveryId: id,
      // One user's commands in one channel are one conversation.
      conversation: `${channel}:${userId}`,
      from: typeof user?.username === 'string' ? `${user.username} (${userId})` : userId,
      text,
      replyTo: { ...replyTo },
    },
  };
}

/** The command's text: a named text option, else the first string option, looking into subcommands. */
function textOf(options: CommandOption[], depth: number): string {
  if (depth > MAX_DEPTH) return '';
  const strings = options.filter((o) => isObject(o) && o.type === STRING_OPTION && typeof o.value === 'string');
  const named = TEXT_OPTIONS.map((n) => strings.find((o) => o.name === n)).find((o) => o !== undefined);
  const chosen = named ?? strings[0];
  if (chosen !== undefined) return chosen.value as string;
  for (const o of options) {
    if (isObject(o) && Array.isArray(o.options)) {
      const inner = textOf(o.options, depth + 1);
      if (inner !== '') return inner;
    }
  }
  return '';
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
