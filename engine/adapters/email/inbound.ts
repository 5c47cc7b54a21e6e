/**
 * One fetched mail → what the host records (`InboundMessage`), or why it is not answered.
 * The delivery id is the Message-ID (a hash of the header block when there is none), the
 * conversation is the thread's root, and `replyTo` keeps what the reply needs.
 */
import { createHash } from 'node:crypto';
import type { AddressObject, ParsedMail } from 'mailparser';
import type { InboundMessage } from '../types.js';
import { messageText } from './body.js';
import { ignoreReason } from './filters.js';
import type { MailHeaders, MailRules } from './filters.js';
import type { EmailReplyTo } from './reply-mail.js';

/** Where the mail was found: its UID under the mailbox's UIDVALIDITY. */
export interface MailPlace {
  mailbox: string;
  uid: number;
  uidValidity: string;
}

export type Taken = { kind: 'take'; message: InboundMessage } | { kind: 'ignore'; reason: string; deliveryId: string };

function firstAddress(field: AddressObject | AddressObject[] | undefined): { address: string; name: string } | null {
  const list = field === undefined ? [] : Array.isArray(field) ? field : [field];
  for (const obj of list) {
    for (const a of obj.value) {
      const found = a.address !== undefined && a.address !== '' ? a : a.group?.find((g) => g.address !== undefined && g.address !== '');
      if (found?.address !== undefined) return { address: found.address, name: found.name };
    }
  }
  return null;
}

/** Lower-case header name → its first value, unfolded. */
function headerMap(parsed: ParsedMail): MailHeaders {
  const out = new Map<string, string>();
  for (const { key, line } of parsed.headerLines) {
    if (out.has(key)) continue;
    const colon = line.indexOf(':');
    out.set(key, line.slice(colon + 1).replace(/\s+/g, ' ').trim());
  }
  return out;
}

function list(value: string | string[] | undefined): string[] {
  return value === undefined ? [] : (Array.isArray(value) ? value : value.split(/\s+/)).map((v) => v.trim()).filter((v) => v !== '');
}

/** Longest Message-ID kept as it is; a longer one (a hostile mail) is replaced by its hash. */
const MAX_ID_CHARS = 200;

const sha256 = (data: string | Buffer): string => `sha256:${createHash('sha256').update(data).digest('hex')}`;

/** A thread or delivery id as recorded: the Message-ID, hashed when it is too long. */
function idKey(id: string): string {
  return id.length <= MAX_ID_CHARS ? id : sha256(id);
}

/** The Message-ID, or `sha256:<hex>` of the raw header block (stable: a stored mail's headers never change). */
export function deliveryIdOf(parsed: ParsedMail, source: Buffer): string {
  const id = parsed.messageId?.trim();
  if (id !== undefined && id !== '') return idKey(id);
  const end = source.indexOf('\r\n\r\n');
  return sha256(end < 0 ? source : source.subarray(0, end));
}

/** Decide about one mail: take it (the host records and answers it) or ignore it, with the reason. */
export function takeMail(parsed: ParsedMail, source: Buffer, place: MailPlace, rules: MailRules): Taken {
  const deliveryId = deliveryIdOf(parsed, source);
  const from = firstAddress(parsed.from);
  const answerTo = firstAddress(parsed.replyTo) ?? from;
  const reason = ignoreReason(headerMap(parsed), { from: from?.address ?? null, replyTo: answerTo?.address ?? null }, rules);
  if (reason !== null || from === null || answerTo === null) return { kind: 'ignore', reason: reason ?? 'it has no sender address', deliveryId };
  const text = messageText(parsed.text, parsed.subject);
  if (text === '') return { kind: 'ignore', reason: 'it has neither text nor a subject', deliveryId };
  const messageId = parsed.messageId?.trim() || null;
  const references = list(parsed.references);
  const inReplyTo = list(parsed.inReplyTo)[0];
  const replyTo: EmailReplyTo = { to: answerTo.address, subject: parsed.subject ?? '', messageId, references, ...place };
  return {
    kind: 'take',
    message: {
      deliveryId,
      conversation: idKey(references[0] ?? inReplyTo ?? messageId ?? deliveryId),
      from: from.name === '' ? from.address : `${from.name} <${from.address}>`,
      text,
      replyTo: { ...replyTo },
    },
  };
}
