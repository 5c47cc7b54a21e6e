/**
 * A horde's `send` step through the email adapter: one mail from the adapter's `address` to
 * one address, over its SMTP server (no IMAP: nothing is read). Its Message-ID is made from
 * the delivery's key, so the same delivery is the same mail in the reader's client; it is
 * marked `Auto-Submitted: auto-generated` (RFC 3834), so robots do not answer it. A server
 * that refused the login or the mail (a 4xx or 5xx answer) is KW_ERR_SEND_REFUSED: not sent.
 */
import { createHash } from 'node:crypto';
import { KowalskiError, messageOf } from '../../../core/index.js';
import type { OutboundMessage, OutboundReceipt } from '../types.js';
import { isMailAddress } from './settings.js';
import type { EmailSettings } from './settings.js';
import { openSender } from './smtp.js';
import type { ReplyMail } from './reply-mail.js';

/** A subject made from the text: its first line that says something, without Markdown's `#`, cut to 120 characters. */
function subjectOf(text: string): string {
  const line = text.split('\n').map((l) => l.replace(/^#+\s*/, '').trim()).find((l) => l !== '') ?? 'kowalski';
  return line.length <= 120 ? line : `${line.slice(0, 119)}…`;
}

export function outboundMail(settings: EmailSettings, message: OutboundMessage): ReplyMail {
  const digest = createHash('sha256').update(message.key).digest('hex').slice(0, 32);
  const at = settings.address.lastIndexOf('@');
  return {
    from: settings.address,
    to: message.to,
    subject: message.subject ?? subjectOf(message.text),
    text: message.text,
    messageId: `<kowalski-send.${digest}@${settings.address.slice(at + 1)}>`,
    headers: { 'Auto-Submitted': 'auto-generated' },
  };
}

export async function sendMail(settings: EmailSettings, message: OutboundMessage): Promise<OutboundReceipt> {
  const where = `email to ${message.to}`;
  if (!isMailAddress(message.to)) throw new KowalskiError('KW_ERR_SEND_REFUSED', `${where}: "${message.to}" is not one mail address (name@example.com)`);
  const mail = outboundMail(settings, message);
  const nodemailer = await import('nodemailer');
  let sender;
  try {
    sender = await openSender(nodemailer, settings);
  } catch (err) {
    // Not connected or not logged in: nothing was sent.
    throw new KowalskiError('KW_ERR_SEND_REFUSED', `${where}: ${messageOf(err)}`, { cause: err });
  }
  try {
    await sender.send(mail);
  } catch (err) {
    const code = ((err as Error).cause as { responseCode?: unknown } | undefined)?.responseCode;
    // The server answered the mail with a refusal: not sent. Anything else (the connection dropped): not known.
    if (typeof code === 'number' && code >= 400) throw new KowalskiError('KW_ERR_SEND_REFUSED', `${where}: ${messageOf(err)}`, { cause: err });
    throw err;
  } finally {
    sender.close();
  }
  return { messageId: mail.messageId };
}
