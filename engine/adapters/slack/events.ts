/**
 * What a verified Slack Events API request asks for: the URL challenge, a message to
 * answer, or nothing (with the reason). Messages are `message` and `app_mention` events;
 * bots (`bot_id`, subtype `bot_message`), our own bot user, edits, deletions, joins and
 * other subtypes are ignored. One message arrives under several event ids (a mention in a
 * channel is both `message` and `app_mention`; Slack redelivers under new ids), so besides
 * its `event_id` it carries the dedupe key `msg:<channel>:<ts>`. The answer goes in the
 * message's thread (`thread_ts`, or the message's own `ts` when it starts one).
 */
import { KowalskiError } from '../../../core/index.js';
import type { InboundMessage } from '../types.js';

export type SlackRequest =
  | { kind: 'challenge'; challenge: string }
  | { kind: 'message'; message: InboundMessage }
  | { kind: 'ignored'; reason: string };

/** Where the answer goes: kept with the inbound record as `replyTo`. */
export interface SlackReplyTo {
  channel: string;
  thread_ts: string;
}

/** Message subtypes that are a person writing (a plain message has none). */
const PERSON_SUBTYPES = new Set(['file_share', 'thread_broadcast', 'me_message']);
const ID = /^[A-Za-z0-9._:-]{1,100}$/;
const TS = /^\d{1,12}\.\d{1,9}$/;

/** `rawBody` has been verified; `botUserId` is our own bot's user id (its messages are not answered). */
export function readSlackRequest(rawBody: Buffer, botUserId: string): SlackRequest {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch {
    throw new KowalskiError('KW_ERR_BAD_REQUEST', 'a Slack request must be JSON (the Events API sends application/json)');
  }
  if (!isObject(body)) throw new KowalskiError('KW_ERR_BAD_REQUEST', 'a Slack request must be a JSON object');
  if (body.type === 'url_verification') {
    if (typeof body.challenge !== 'string' || body.challenge === '' || body.challenge.length > 500) {
      throw new KowalskiError('KW_ERR_BAD_REQUEST', 'a Slack url_verification request must carry a challenge string');
    }
    return { kind: 'challenge', challenge: body.challenge };
  }
  if (body.type !== 'event_callback') return ignored(`request type ${JSON.stringify(body.type)} is not an event`);
  if (typeof body.event_id !== 'string' || !ID.test(body.event_id)) throw new KowalskiError('KW_ERR_BAD_REQUEST', 'a Slack event_callback must carry an event_id');
  const event = body.event;
  if (!isObject(event)) throw new KowalskiError('KW_ERR_BAD_REQUEST', 'a Slack event_callback must carry an event object');
  return readEvent(body.event_id, event, botUserId);
}

function readEvent(eventId: string, event: Record<string, unknown>, botUserId: string): SlackRequest {
  if (event.type !== 'message' && event.type !== 'app_mention') return ignored(`event type ${JSON.stringify(event.type)} is not a message`);
  if (event.bot_id !== undefined || event.subtype === 'bot_message') return ignored('a bot wrote it');
  if (event.subtype !== undefined && !PERSON_SUBTYPES.has(String(event.subtype))) return ignored(`message subtype ${JSON.stringify(event.subtype)} is not a person writing`);
  if (event.hidden === true) return ignored('a hidden message');
  const { user, channel, ts, text } = event;
  if (typeof user !== 'string' || !ID.test(user)) return ignored('no user wrote it');
  if (user === botUserId) return ignored('our own message');
  if (typeof channel !== 'string' || !ID.test(channel)) throw new KowalskiError('KW_ERR_BAD_REQUEST', 'a Slack message event must name its channel');
  if (typeof ts !== 'string' || !TS.test(ts)) throw new KowalskiError('KW_ERR_BAD_REQUEST', 'a Slack message event must carry its ts');
  const threadTs = typeof event.thread_ts === 'string' && TS.test(event.thread_ts) ? event.thread_ts : ts;
  const said = withoutMention(typeof text === 'string' ? text : '', botUserId);
  if (said === '') return ignored('the message holds no text');
  const replyTo: SlackReplyTo = { channel, thread_ts: threadTs };
  return {
    kind: 'message',
    message: {
      deliveryId: eventId,
      dedupeKeys: [`msg:${channel}:${ts}`],
      conversation: `${channel}:${threadTs}`,
      from: user,
      text: said,
      replyTo: { ...replyTo },
    },
  };
}

/** The text without the mentions of our bot (`<@U123>` or `<@U123|name>`), trimmed. */
function withoutMention(text: string, botUserId: string): string {
  return text.replace(/<@([A-Z0-9]+)(?:\|[^>]*)?>/g, (m, id: string) => (id === botUserId ? '' : m)).replace(/[ \t]{2,}/g, ' ').trim();
}

function ignored(reason: string): SlackRequest {
  return { kind: 'ignored', reason };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
