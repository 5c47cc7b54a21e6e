/**
 * The IMAP side, through imapflow (imported when the adapter starts, never before): a
 * short session on the mailbox per poll or per mark (connect, open, work, log out), the
 * unseen mail oldest first, each bounded in size, and `\Seen` set by UID — by Message-ID instead
 * when the mailbox's UIDVALIDITY changed since the mail was read.
 */
import type * as Imapflow from 'imapflow';
import type { ImapFlow } from 'imapflow';
import { isLoopback } from '../../../agents/index.js';
import type { EmailReplyTo } from './reply-mail.js';
import type { EmailSettings } from './settings.js';

/** Most bytes of one mail fetched: enough for the text of any mail, not for every attachment. */
export const MAX_MAIL_BYTES = 2 * 1024 * 1024;

export type ImapModule = typeof Imapflow;

function describe(err: unknown, settings: EmailSettings): Error {
  const e = err as { message?: string; responseText?: string; authenticationFailed?: boolean; code?: string };
  const why = e.authenticationFailed === true ? `login as ${settings.imap.user} refused` : (e.responseText ?? e.message ?? String(err));
  return new Error(`IMAP ${settings.imap.host}:${settings.imap.port}: ${why}${e.code !== undefined && e.authenticationFailed !== true ? ` (${e.code})` : ''}`, { cause: err });
}

/** Open `settings.mailbox`, run `fn`, log out (or drop the connection when something failed). */
export async function withMailbox<T>(imap: ImapModule, settings: EmailSettings, fn: (client: ImapFlow, uidValidity: string) => Promise<T>): Promise<T> {
  const client = new imap.ImapFlow({
    host: settings.imap.host,
    port: settings.imap.port,
    secure: settings.imap.secure,
    // Off this machine, a connection that did not start with TLS must upgrade (STARTTLS) before the password is sent.
    ...(settings.imap.secure || isLoopback(settings.imap.host) ? {} : { doSTARTTLS: true }),
    auth: { user: settings.imap.user, pass: settings.imap.password },
    logger: false,
    connectionTimeout: 30_000,
    socketTimeout: 120_000,
    maxResponseSize: MAX_MAIL_BYTES * 4,
  });
  // imapflow reports a dropped connection as an event too; the awaited call below rejects with it.
  client.on('error', () => undefined);
  try {
    await client.connect();
    const lock = await client.getMailboxLock(settings.mailbox);
    try {
      const uidValidity = client.mailbox === false ? '0' : String(client.mailbox.uidValidity);
      return await fn(client, uidValidity);
    } finally {
      lock.release();
    }
  } catch (err) {
    client.close();
    throw describe(err, settings);
  } finally {
    // The work is done (or already failed): a logout that fails changes neither, so it only drops the connection.
    if (client.usable) await client.logout().catch(() => client.close());
  }
}

/** The UIDs of the unseen mails, oldest first. */
export async function unseenUids(client: ImapFlow): Promise<number[]> {
  const uids = (await client.search({ seen: false }, { uid: true })) || [];
  return [...uids].sort((a, b) => a - b);
}

/** One mail, cut at `MAX_MAIL_BYTES` (fetched one at a time: a poll holds one mail in memory); null when it went meanwhile. */
export async function fetchMail(client: ImapFlow, uid: number): Promise<Buffer | null> {
  const msg = await client.fetchOne(String(uid), { uid: true, source: { maxLength: MAX_MAIL_BYTES } }, { uid: true });
  return msg === false || msg.source === undefined ? null : msg.source;
}

export async function markSeen(client: ImapFlow, uid: number): Promise<void> {
  await client.messageFlagsAdd([uid], ['\\Seen'], { uid: true });
}

/** Mark the original of a reply seen: by UID while the mailbox's UIDVALIDITY is the one it was read under, else found by Message-ID. */
export async function markOriginalSeen(client: ImapFlow, uidValidity: string, original: EmailReplyTo): Promise<void> {
  if (uidValidity === original.uidValidity) return markSeen(client, original.uid);
  if (original.messageId === null) return;
  const uids = (await client.search({ header: { 'message-id': original.messageId } }, { uid: true })) || [];
  for (const uid of uids) await markSeen(client, uid);
}
