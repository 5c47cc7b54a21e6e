/**
 * The SMTP side, through nodemailer (imported when the adapter starts): one transport per
 * adapter, checked at start (connect and log in) so a wrong host or password makes the
 * adapter `error` at once instead of at its first answer.
 */
import type * as Nodemailer from 'nodemailer';
import type { Transporter } from 'nodemailer';
import { isLoopback } from '../../../agents/index.js';
import type { ReplyMail } from './reply-mail.js';
import type { EmailSettings } from './settings.js';

export type NodemailerModule = typeof Nodemailer;

export interface Sender {
  send(mail: ReplyMail): Promise<void>;
  close(): void;
}

function describe(err: unknown, settings: EmailSettings): Error {
  const e = err as { message?: string; responseCode?: number; code?: string };
  const why = e.code === 'EAUTH' ? `login as ${settings.smtp.user ?? '(none)'} refused` : (e.message ?? String(err));
  return new Error(`SMTP ${settings.smtp.host}:${settings.smtp.port}: ${why}`, { cause: err });
}

export async function openSender(nodemailer: NodemailerModule, settings: EmailSettings): Promise<Sender> {
  const { smtp } = settings;
  const transport: Transporter = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port,
    secure: smtp.secure,
    // Off this machine, a connection that did not start with TLS must upgrade (STARTTLS) before anything is sent.
    requireTLS: !smtp.secure && !isLoopback(smtp.host),
    ...(smtp.user === null ? {} : { auth: { user: smtp.user, pass: smtp.password ?? '' } }),
    connectionTimeout: 30_000,
    greetingTimeout: 30_000,
    socketTimeout: 60_000,
  });
  try {
    await transport.verify();
  } catch (err) {
    transport.close();
    throw describe(err, settings);
  }
  return {
    async send(mail) {
      try {
        await transport.sendMail(mail);
      } catch (err) {
        throw describe(err, settings);
      }
    },
    close: () => transport.close(),
  };
}
