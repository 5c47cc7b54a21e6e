/**
 * Real mail servers for the email adapter's tests, on 127.0.0.1: hoodiecrow-imap (an
 * in-memory IMAP server; the test appends mail and reads its flags) and smtp-server
 * capturing every mail sent, parsed, able to refuse the next sends (a temporary failure).
 */
import type net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { TestContext } from 'node:test';
import hoodiecrow from 'hoodiecrow-imap';
import { simpleParser } from 'mailparser';
import type { ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { cleanups } from '../../testkit/cleanup.js';

export const IMAP_USER = 'agent';
export const IMAP_PASSWORD = 'imap-secret-1';

export interface FakeImap {
  port: number;
  /** Put a mail in INBOX (unseen); its UID. */
  deliver(raw: string): number;
  /** The flags of the mail with this UID. */
  flags(uid: number): string[];
  /** Connections opened so far (each poll and each mark opens one). */
  logins(): number;
  close(): Promise<void>;
}

/** Close a server, dropping the connections still open. */
function closeServer(server: net.Server, sockets: Set<net.Socket>): Promise<void> {
  for (const s of sockets) s.destroy();
  return new Promise((resolve) => server.close(() => resolve()));
}

function tracked(server: net.Server): Set<net.Socket> {
  const sockets = new Set<net.Socket>();
  server.on('connection', (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return sockets;
}

export async function startImap(t: TestContext): Promise<FakeImap> {
  const imap = hoodiecrow({ plugins: ['ID', 'UNSELECT', 'ENABLE'], users: { [IMAP_USER]: { password: IMAP_PASSWORD } }, storage: { INBOX: { messages: [] }, '': {} } });
  const sockets = tracked(imap.server);
  let logins = 0;
  imap.server.on('connection', () => logins++);
  await new Promise<void>((resolve) => imap.server.listen(0, '127.0.0.1', resolve));
  const port = (imap.server.address() as AddressInfo).port;
  const mail = (uid: number) => {
    const found = imap.getMailbox('INBOX').messages.find((m) => m.uid === uid);
    if (found === undefined) throw new Error(`no mail with UID ${uid} in INBOX`);
    return found;
  };
  const out: FakeImap = {
    port,
    deliver: (raw) => imap.appendMessage('INBOX', [], false, raw.replace(/\r?\n/g, '\r\n')).message.uid,
    flags: (uid) => [...mail(uid).flags],
    logins: () => logins,
    close: () => closeServer(imap.server, sockets),
  };
  cleanups(t)(() => out.close());
  return out;
}

export interface FakeSmtp {
  port: number;
  /** Every mail taken, parsed, in order. */
  sent: ParsedMail[];
  /** Sends refused so far. */
  refused: number;
  /** Refuse the next `n` sends with a temporary error (451), after their whole body was read. */
  refuseNext(n: number): void;
  close(): Promise<void>;
}

export async function startSmtp(t: TestContext): Promise<FakeSmtp> {
  let toRefuse = 0;
  const out: FakeSmtp = {
    port: 0,
    sent: [],
    refused: 0,
    refuseNext: (n) => { toRefuse = n; },
    close: () => Promise.resolve(),
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (toRefuse > 0) {
          toRefuse--;
          out.refused++;
          callback(Object.assign(new Error('try again later'), { responseCode: 451 }));
          return;
        }
        simpleParser(Buffer.concat(chunks)).then((parsed) => {
          out.sent.push(parsed);
          callback();
        }, callback);
      });
    },
  });
  const sockets = tracked(server.server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  out.port = (server.server.address() as AddressInfo).port;
  out.close = () => closeServer(server.server, sockets);
  cleanups(t)(() => out.close());
  return out;
}
