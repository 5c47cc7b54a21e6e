/**
 * What a plugin adapter's `receive` answers, read by the host: the plugin's code is not
 * trusted, so every field is checked before anything is recorded — `{status?, body?,
 * messages}`, each message `{deliveryId, conversation?, from?, text, dedupeKeys?,
 * replyTo?}`. A bad answer is KW_ERR_PLUGIN_ADAPTER naming the field; nothing of it is
 * recorded.
 */
import { KowalskiError } from '../../../core/index.js';
import { MAX_MESSAGE_CHARS } from '../../chat/index.js';
import type { InboundMessage } from '../types.js';

/** Messages one request may carry. */
export const MAX_MESSAGES_PER_REQUEST = 20;
/** A message's `replyTo`, as JSON, at most this many bytes (it is kept with the record). */
export const MAX_REPLY_TO_BYTES = 16 * 1024;
const ID_MAX = 200;

export interface PluginReceiveAnswer {
  /** The HTTP status the channel is answered (200–299 or 400–499; default 200). */
  status?: number;
  /** The body the channel is answered (JSON); default `{ok, records, duplicates}`. */
  body?: unknown;
  messages: InboundMessage[];
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function readReceiveAnswer(plugin: string, adapter: string, value: unknown): PluginReceiveAnswer {
  const bad = (field: string, what: string): KowalskiError => new KowalskiError('KW_ERR_PLUGIN_ADAPTER', `plugin ${plugin}: adapter ${adapter}'s receive answered ${field === '' ? '' : `${field} `}${what}`);
  if (!isObject(value)) throw bad('', 'with something that is not an object {status?, body?, messages}');
  const { status, body, messages = [] } = value;
  for (const key of Object.keys(value)) if (!['status', 'body', 'messages'].includes(key)) throw bad(key, 'which is not a known field (status, body, messages)');
  if (status !== undefined && (typeof status !== 'number' || !Number.isInteger(status) || !((status >= 200 && status <= 299) || (status >= 400 && status <= 499)))) {
    throw bad('status', `${JSON.stringify(status)}: it must be a whole number from 200 to 299 or 400 to 499`);
  }
  if (!Array.isArray(messages)) throw bad('messages', 'that is not an array');
  if (messages.length > MAX_MESSAGES_PER_REQUEST) throw bad('messages', `with ${messages.length} messages; at most ${MAX_MESSAGES_PER_REQUEST} per request`);
  const read = messages.map((m: unknown, i): InboundMessage => {
    const at = `messages[${i}]`;
    if (!isObject(m)) throw bad(at, 'that is not an object');
    for (const key of Object.keys(m)) if (!['deliveryId', 'conversation', 'from', 'text', 'dedupeKeys', 'replyTo'].includes(key)) throw bad(`${at}.${key}`, 'which is not a known field');
    const str = (key: string, max: number, fallback?: string): string => {
      const v = m[key] ?? fallback;
      if (typeof v !== 'string' || v.trim() === '' || v.length > max) throw bad(`${at}.${key}`, `that is not a string of 1 to ${max} characters`);
      return v;
    };
    const deliveryId = str('deliveryId', ID_MAX);
    const dedupeKeys = m.dedupeKeys ?? [];
    if (!Array.isArray(dedupeKeys) || dedupeKeys.length > 10 || dedupeKeys.some((k) => typeof k !== 'string' || k === '' || k.length > ID_MAX)) {
      throw bad(`${at}.dedupeKeys`, `that is not a list of at most 10 strings of 1 to ${ID_MAX} characters`);
    }
    const replyTo = m.replyTo ?? {};
    if (!isObject(replyTo) || Buffer.byteLength(JSON.stringify(replyTo)) > MAX_REPLY_TO_BYTES) throw bad(`${at}.replyTo`, `that is not an object of at most ${MAX_REPLY_TO_BYTES} bytes as JSON`);
    return {
      deliveryId,
      conversation: str('conversation', ID_MAX, deliveryId),
      from: str('from', ID_MAX, plugin),
      text: str('text', MAX_MESSAGE_CHARS),
      ...(dedupeKeys.length === 0 ? {} : { dedupeKeys: dedupeKeys as string[] }),
      replyTo,
    };
  });
  return { ...(status === undefined ? {} : { status: status as number }), ...(body === undefined ? {} : { body }), messages: read };
}
