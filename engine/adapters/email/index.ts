/**
 * The email adapter: it polls an IMAP mailbox for unseen mail and answers over SMTP.
 * Each mail it may answer becomes a durable chat turn (deduplicated by Message-ID, one
 * chat session per thread); the answer goes back as a threaded `Re:` mail and only then is
 * the original marked seen. Mail from itself, automatic mail, bulk and list mail is never
 * answered (filters.ts). imapflow, mailparser and nodemailer are imported at start only.
 */
import type { AdapterDefinition, AdapterHost, AdapterInstance } from '../types.js';
import { markOriginalSeen, withMailbox } from './mailbox.js';
import { pollMemory, pollOnce } from './poll.js';
import { pollLoop } from './poll-loop.js';
import { readReplyTo, replyMail } from './reply-mail.js';
import { EMAIL_SECRET_KEYS, emailSettings } from './settings.js';
import type { EmailSettings } from './settings.js';
import { openSender } from './smtp.js';
import { sendMail } from './send-mail.js';

async function start(settings: EmailSettings, host: AdapterHost): Promise<AdapterInstance> {
  const [imap, mailparser, nodemailer] = await Promise.all([import('imapflow'), import('mailparser'), import('nodemailer')]);
  const sender = await openSender(nodemailer, settings);
  try {
    // Log in and open the mailbox once now: a wrong password or folder makes the adapter `error` at start.
    await withMailbox(imap, settings, async () => undefined);
  } catch (err) {
    sender.close();
    throw err;
  }
  const memory = pollMemory();
  const loop = pollLoop(host, settings.pollSecs * 1000, () => pollOnce({ imap, mailparser, settings, host, memory }));
  return {
    async reply(record, answer) {
      const original = readReplyTo(record.replyTo);
      await sender.send(replyMail(original, answer, settings.address, record.deliveryId));
      // Sent: from here a failure must not throw, or the host would send the answer again. An
      // original left unseen is read again by the next poll, which finds its record replied and marks it.
      await withMailbox(imap, settings, (client, uidValidity) => markOriginalSeen(client, uidValidity, original)).catch((err: unknown) => {
        memory.handedOver.delete(original.uid);
        host.failed(err);
      });
    },
    async stop() {
      await loop.stop();
      sender.close();
    },
  };
}

export const emailAdapter: AdapterDefinition<EmailSettings> = {
  type: 'email',
  settings: emailSettings,
  secretKeys: EMAIL_SECRET_KEYS,
  start,
  send: (settings, message) => sendMail(settings, message),
};
