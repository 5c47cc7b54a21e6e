/** The little of hoodiecrow-imap (a scriptable IMAP server, no types of its own) the mail tests use. */
declare module 'hoodiecrow-imap' {
  import type net from 'node:net';

  interface HoodiecrowMessage {
    raw: string;
    flags: string[];
    uid: number;
  }
  interface HoodiecrowMailbox {
    messages: HoodiecrowMessage[];
  }
  interface HoodiecrowOptions {
    plugins?: string[];
    users?: Record<string, { password: string }>;
    storage?: Record<string, { messages?: Array<{ raw: string; flags?: string[] }> }>;
  }
  interface HoodiecrowServer {
    server: net.Server;
    getMailbox(path: string): HoodiecrowMailbox;
    appendMessage(mailbox: string, flags: string[], internaldate: false, raw: string): { message: HoodiecrowMessage };
  }
  function hoodiecrow(options?: HoodiecrowOptions): HoodiecrowServer;
  export default hoodiecrow;
}
