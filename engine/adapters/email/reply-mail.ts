/**
 * The answer as a mail: `Re:` once, threaded under the original (`In-Reply-To`,
 * `References`), marked `Auto-Submitted: auto-replied` (RFC 3834) so other robots do not
 * answer it, from the adapter's own address. Its Message-ID is derived from the original's,
 * so a send repeated after an unknown outcome shows as one mail in the reader's client.
 */
import { createHash } from 'node:crypto';
import { KowalskiError } from '../../../core/index.js';

/** What an inbound mail's record keeps for its answer (`InboundRecord.replyTo`). */
export interface EmailReplyTo {
  /** `Reply-To`, else `From`. */
  to: string;
  subject: string;
  /** The original's Message-ID, `<…>`; null when it had none. */
  messageId: string | null;
  /** The original's `References`. */
  references: string[];
  /** Where the original is, to mark it seen once the answer is sent. */
  mailbox: string;
  uid: number;
  uidValidity: string;
}

/** The mail nodemailer sends. */
export interface ReplyMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  messageId: string;
  inReplyTo?: string;
  references?: string[];
  headers: Record<string, string>;
}

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** Read a record's `replyTo` back (it went through JSON in the database). */
export function readReplyTo(raw: Record<string, unknown>): EmailReplyTo {
  const { to, subject, messageId, references, mailbox, uid, uidValidity } = raw;
  if (typeof to !== 'string' || typeof subject !== 'string' || (messageId !== null && typeof messageId !== 'string') || !isStringArray(references)
    || typeof mailbox !== 'string' || typeof uid !== 'number' || typeof uidValidity !== 'string') {
    throw new KowalskiError('KW_ERR_INTERNAL', `an email record's reply address is malformed: ${JSON.stringify(Object.keys(raw))}`);
  }
  return { to, subject, messageId, references, mailbox, uid, uidValidity };
}

/** `Re: ` before the subject, unless it already starts with one (`Re:`, `RE:`, `Re[2]:`). */
export function replySubject(subject: string): string {
  const s = subject.trim();
  return /^re(\[\d+\])?\s*:/i.test(s) ? s : `Re: ${s}`;
}

function domainOf(address: string): string {
  const at = address.lastIndexOf('@');
  return at < 0 ? 'kowalski.invalid' : address.slice(at + 1);
}

/** The reply to `original` from `address`, saying `answer`. */
export function replyMail(original: EmailReplyTo, answer: string, address: string, deliveryId: string): ReplyMail {
  const digest = createHash('sha256').update(deliveryId).digest('hex').slice(0, 32);
  const mail: ReplyMail = {
    from: address,
    to: original.to,
    subject: replySubject(original.subject),
    text: answer,
    messageId: `<kowalski-reply.${digest}@${domainOf(address)}>`,
    headers: { 'Auto-Submitted': 'auto-replied' },
  };
  if (original.messageId !== null) {
    mail.inReplyTo = original.messageId;
    mail.references = [...original.references.filter((r) => r !== original.messageId), original.messageId];
  } else if (original.references.length > 0) {
    mail.references = original.references;
  }
  return mail;
}
