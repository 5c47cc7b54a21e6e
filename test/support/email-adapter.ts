/**
 * The email adapter end to end: the scripted fake model, both mail servers
 * (mail-servers.ts), and a data folder whose config.toml has `[adapters.mail]` pointing at
 * them, its agent `mailbot` a profile with no tools.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { profile, writeTeam } from '../../testkit/chat.js';
import { cleanups } from '../../testkit/cleanup.js';
import { startFakeOllama } from '../../testkit/fake-models.js';
import type { FakeModelServer, FakeScript } from '../../testkit/fake-models.js';
import { IMAP_PASSWORD, IMAP_USER, startImap, startSmtp } from './mail-servers.js';
import type { FakeImap, FakeSmtp } from './mail-servers.js';

export const OWN = 'agent@example.com';
export const PASSWORD_ENV = 'KW_TEST_EMAIL_IMAP_PASSWORD';

export interface MailSetup {
  home: string;
  model: FakeModelServer;
  imap: FakeImap;
  smtp: FakeSmtp;
}

/** The fake model, both mail servers, and a data folder whose config.toml has `[adapters.mail]` pointing at them. */
export async function mailSetup(t: TestContext, script: FakeScript, imapPassword = `password_env = "${PASSWORD_ENV}"`): Promise<MailSetup> {
  const imap = await startImap(t);
  const smtp = await startSmtp(t);
  const model = await startFakeOllama(script);
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'kw-email-'));
  process.env[PASSWORD_ENV] = IMAP_PASSWORD;
  cleanups(t)(async () => {
    delete process.env[PASSWORD_ENV];
    await model.close();
    fs.rmSync(home, { recursive: true, force: true });
  });
  writeTeam(home, { mailbot: profile('mailbot', 'tools = []') });
  fs.writeFileSync(path.join(home, 'config.toml'), `[model]
default = "ollama:qwen2.5:7b"
[providers.ollama]
host = "${model.url}"
[adapters.mail]
type = "email"
enabled = true
agent = "mailbot"
address = "${OWN}"
poll_secs = 5
imap = { host = "127.0.0.1", port = ${imap.port}, secure = false, user = "${IMAP_USER}", ${imapPassword} }
smtp = { host = "127.0.0.1", port = ${smtp.port}, secure = false }
`);
  return { home, model, imap, smtp };
}

/** A mail from Ann to the adapter, its Message-ID `<id@example.org>`. */
export function mail(id: string, headers = '', body = 'Can we meet on Tuesday?'): string {
  return `From: Ann <ann@example.org>\nTo: ${OWN}\nSubject: Plans\nMessage-ID: <${id}@example.org>\n${headers}\n${body}`;
}

/** The agent answers every turn with `text`. */
export const answers = (text: string): FakeScript => () => ({ text });
