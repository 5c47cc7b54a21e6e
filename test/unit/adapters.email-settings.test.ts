/** `[adapters.<name>]` of type email: defaults, secrets from the environment, and errors naming the key — never the secret. */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { parse } from 'smol-toml';
import type { KowalskiError } from '../../core/index.js';
import { emailAdapter } from '../../engine/adapters/email/index.js';
import { shownSettings } from '../../engine/adapters/settings.js';

const BASE = {
  address: 'agent@example.com',
  imap: { host: 'imap.example.com', user: 'agent@example.com', password: 'imap-pw-1' },
  smtp: { host: 'smtp.example.com', user: 'agent@example.com', password_env: 'SMTP_PW' },
};
const ENV = { SMTP_PW: 'smtp-pw-2' };

function refused(raw: Record<string, unknown>, key: string, message: RegExp, env: NodeJS.ProcessEnv = ENV): void {
  assert.throws(() => emailAdapter.settings(raw, env, 'mail'), (err: KowalskiError) => {
    assert.equal(err.code, 'KW_ERR_ADAPTER_CONFIG');
    assert.equal(err.where?.key, `adapters.mail.${key}`);
    assert.match(err.message, message);
    assert.doesNotMatch(err.message, /imap-pw-1|smtp-pw-2/);
    return true;
  });
}

test('the defaults: TLS on 993 and 465, INBOX, a poll every 60 s; a password from the environment', () => {
  assert.deepEqual(emailAdapter.settings(BASE, ENV, 'mail'), {
    address: 'agent@example.com',
    imap: { host: 'imap.example.com', port: 993, secure: true, user: 'agent@example.com', password: 'imap-pw-1' },
    smtp: { host: 'smtp.example.com', port: 465, secure: true, user: 'agent@example.com', password: 'smtp-pw-2' },
    pollSecs: 60,
    mailbox: 'INBOX',
    allowFrom: [],
  });
  assert.deepEqual(emailAdapter.settings({ ...BASE, allow_from: ['ann@example.org', '@example.com'] }, ENV, 'mail').allowFrom, ['ann@example.org', '@example.com']);
});

test('another port means no TLS at first (STARTTLS: 143, 587) unless secure says so; a relay without a login', () => {
  const s = emailAdapter.settings({ ...BASE, mailbox: 'Agent', poll_secs: 5, imap: { ...BASE.imap, port: 143 }, smtp: { host: 'localhost', port: 587 } }, {}, 'mail');
  assert.deepEqual([s.imap.port, s.imap.secure, s.smtp.port, s.smtp.secure, s.smtp.user, s.smtp.password, s.mailbox, s.pollSecs], [143, false, 587, false, null, null, 'Agent', 5]);
  const forced = emailAdapter.settings({ ...BASE, imap: { ...BASE.imap, port: 10993, secure: true } }, ENV, 'mail');
  assert.deepEqual([forced.imap.port, forced.imap.secure], [10993, true]);
  const plain = emailAdapter.settings({ ...BASE, imap: { ...BASE.imap, secure: false } }, ENV, 'mail');
  assert.deepEqual([plain.imap.port, plain.imap.secure], [143, false]);
});

test('every problem names its key', () => {
  refused({ ...BASE, address: undefined }, 'address', /is required/);
  refused({ ...BASE, address: 'agent' }, 'address', /must be a mail address/);
  refused({ ...BASE, imap: undefined }, 'imap', /must be a table/);
  refused({ ...BASE, imap: { ...BASE.imap, host: undefined } }, 'imap.host', /is required/);
  refused({ ...BASE, imap: { ...BASE.imap, port: 'x' } }, 'imap.port', /whole number from 1 to 65535/);
  refused({ ...BASE, imap: { ...BASE.imap, secure: 'yes' } }, 'imap.secure', /true or false/);
  refused({ ...BASE, imap: { ...BASE.imap, password: undefined } }, 'imap.password', /is required \(or imap\.password_env/);
  refused({ ...BASE, imap: { ...BASE.imap, password_env: 'IMAP_PW' } }, 'imap.password', /both in the file and as imap\.password_env/);
  refused({ ...BASE, smtp: { ...BASE.smtp, password_env: 'NOT_SET_HERE' } }, 'smtp.password_env', /names \$NOT_SET_HERE, which is not set/);
  refused({ ...BASE, smtp: { host: 'smtp.example.com', user: 'agent' } }, 'smtp.password', /go together/);
  refused({ ...BASE, smtp: { host: 'smtp.example.com', password: 'smtp-pw-2' } }, 'smtp.user', /go together/);
  refused({ ...BASE, poll_secs: 2 }, 'poll_secs', /from 5 to 86400/);
  refused({ ...BASE, pol_secs: 10 }, 'pol_secs', /is not a setting of the email adapter; there are address, imap, smtp, poll_secs, mailbox, allow_from/);
  refused({ ...BASE, allow_from: 'ann@example.org' }, 'allow_from', /must be a list of addresses and @domains/);
  refused({ ...BASE, allow_from: ['ann'] }, 'allow_from', /"ann" is neither/);
  refused({ ...BASE, imap: { ...BASE.imap, pasword: 'x' } }, 'imap.pasword', /there are imap\.host, imap\.port/);
});

test('the status never shows a password, in the file or from the environment', () => {
  const shown = shownSettings(BASE, emailAdapter.secretKeys);
  assert.deepEqual(shown, {
    address: 'agent@example.com',
    imap: { host: 'imap.example.com', user: 'agent@example.com', password: '(set)' },
    smtp: { host: 'smtp.example.com', user: 'agent@example.com', password: '(from $SMTP_PW)' },
  });
});

test('the example of docs/adapters.md ("Email") is read as it says', () => {
  const doc = fs.readFileSync(new URL('../../docs/adapters.md', import.meta.url), 'utf8');
  const email = doc.slice(doc.indexOf('## Email'));
  const toml = /```toml\n([\s\S]*?)```/.exec(email)?.[1];
  assert.ok(toml !== undefined, 'the Email section has a TOML example');
  const { type, enabled, agent, ...section } = (parse(toml).adapters as Record<string, Record<string, unknown>>).mail!;
  assert.deepEqual([type, enabled, agent], ['email', true, 'assistant']);
  const s = emailAdapter.settings(section, { KW_IMAP_PASSWORD: 'a', KW_SMTP_PASSWORD: 'b' }, 'mail');
  assert.deepEqual([s.imap.port, s.imap.secure, s.imap.password, s.smtp.port, s.smtp.password, s.pollSecs, s.mailbox, s.allowFrom], [993, true, 'a', 465, 'b', 60, 'INBOX', ['@example.com']]);
});
