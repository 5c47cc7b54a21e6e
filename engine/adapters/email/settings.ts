/**
 * `[adapters.<name>]` of type `email`: its own `address`, the mailbox it reads
 * (`imap = {host, port, secure, user, password | password_env}`, `mailbox`, `poll_secs`),
 * whom it answers (`allow_from`) and the server it answers through
 * (`smtp = {host, port, secure, user, password | password_env}`).
 * Every problem is KW_ERR_ADAPTER_CONFIG naming the key (`imap.host`, `smtp.password_env`…).
 */
import { adapterConfigError, intSetting, secretSetting, stringSetting } from '../settings.js';

export interface EmailSettings {
  /** `address`: the adapter's own address, the From of its answers; mail from it is never answered. */
  address: string;
  imap: { host: string; port: number; secure: boolean; user: string; password: string };
  /** `user` and `password` are both set or both absent (a relay on the local host may take mail without a login). */
  smtp: { host: string; port: number; secure: boolean; user: string | null; password: string | null };
  /** `poll_secs` (default 60, at least 5): seconds from the end of one poll to the start of the next. */
  pollSecs: number;
  /** `mailbox` (default `INBOX`): the IMAP folder read. */
  mailbox: string;
  /** `allow_from` (default: anyone): the senders answered, addresses (`ann@example.org`) and domains (`@example.org`). */
  allowFrom: string[];
}

export const EMAIL_SECRET_KEYS = ['imap.password', 'smtp.password'] as const;

const KEYS = ['address', 'imap', 'smtp', 'poll_secs', 'mailbox', 'allow_from'];
const SERVER_KEYS = ['host', 'port', 'secure', 'user', 'password', 'password_env'];

/** A key nobody reads is a typo (`pol_secs`) that would quietly leave the default: refused, naming the keys there are. */
function onlyKnown(raw: Record<string, unknown>, name: string, known: readonly string[], prefix = ''): void {
  const unknown = Object.keys(raw).find((k) => !known.includes(k));
  if (unknown !== undefined) throw adapterConfigError(name, prefix + unknown, `is not a setting of the email adapter; there are ${known.map((k) => prefix + k).join(', ')}`);
}

const ADDRESS = /^[^\s@<>",;]+@[^\s@<>",;]+\.[^\s@<>",;]+$|^[^\s@<>",;]+@localhost$/;

/** One plain mail address (`ann@example.org`): no name, no list. */
export const isMailAddress = (s: string): boolean => ADDRESS.test(s);

/** A sub-table (`imap`, `smtp`) with its keys named `imap.host`…, so the shared helpers name them whole in their messages. */
function subTable(raw: Record<string, unknown>, name: string, key: string): Record<string, unknown> {
  const t = raw[key];
  if (typeof t !== 'object' || t === null || Array.isArray(t)) throw adapterConfigError(name, key, `must be a table: ${key} = { host = "…", port = …, user = "…", password_env = "…" }`);
  onlyKnown(t as Record<string, unknown>, name, SERVER_KEYS, `${key}.`);
  return Object.fromEntries(Object.entries(t).map(([k, v]) => [`${key}.${k}`, v]));
}

function boolSetting(raw: Record<string, unknown>, name: string, key: string, fallback: boolean): boolean {
  const v = raw[key] ?? fallback;
  if (typeof v !== 'boolean') throw adapterConfigError(name, key, `must be true or false, not ${JSON.stringify(v)}`);
  return v;
}

function server(raw: Record<string, unknown>, name: string, key: 'imap' | 'smtp', ports: { secure: number; plain: number }): { host: string; port: number; secure: boolean } {
  const secureDefault = raw[`${key}.port`] === undefined || raw[`${key}.port`] === ports.secure;
  const secure = boolSetting(raw, name, `${key}.secure`, secureDefault);
  return {
    host: stringSetting(raw, name, `${key}.host`, { required: true }),
    port: intSetting(raw, name, `${key}.port`, secure ? ports.secure : ports.plain, 1, 65535),
    secure,
  };
}

function allowFrom(raw: Record<string, unknown>, name: string): string[] {
  const v = raw.allow_from ?? [];
  const entries = Array.isArray(v) ? v : [v];
  const bad = entries.find((e) => typeof e !== 'string' || !(ADDRESS.test(e) || /^@[^\s@<>",;]+$/.test(e)));
  if (bad !== undefined || !Array.isArray(v)) throw adapterConfigError(name, 'allow_from', `must be a list of addresses and @domains, e.g. ["ann@example.org", "@example.com"]${bad === undefined ? '' : `; ${JSON.stringify(bad)} is neither`}`);
  return entries as string[];
}

export function emailSettings(raw: Record<string, unknown>, env: NodeJS.ProcessEnv, name: string): EmailSettings {
  onlyKnown(raw, name, KEYS);
  const address = stringSetting(raw, name, 'address', { required: true });
  if (!ADDRESS.test(address)) throw adapterConfigError(name, 'address', `must be a mail address (name@example.com), not ${JSON.stringify(address)}`);
  const imap = subTable(raw, name, 'imap');
  const smtp = subTable(raw, name, 'smtp');
  const smtpUser = stringSetting(smtp, name, 'smtp.user') ?? null;
  const smtpPassword = secretSetting(smtp, env, name, 'smtp.password') ?? null;
  if ((smtpUser === null) !== (smtpPassword === null)) throw adapterConfigError(name, smtpUser === null ? 'smtp.user' : 'smtp.password', 'smtp.user and smtp.password (or smtp.password_env) go together: set both, or neither for a server that takes mail without a login');
  const mailbox = stringSetting(raw, name, 'mailbox') ?? 'INBOX';
  return {
    address,
    imap: { ...server(imap, name, 'imap', { secure: 993, plain: 143 }), user: stringSetting(imap, name, 'imap.user', { required: true }), password: secretSetting(imap, env, name, 'imap.password', { required: true }) },
    smtp: { ...server(smtp, name, 'smtp', { secure: 465, plain: 587 }), user: smtpUser, password: smtpPassword },
    pollSecs: intSetting(raw, name, 'poll_secs', 60, 5, 86_400),
    mailbox,
    allowFrom: allowFrom(raw, name),
  };
}
