/**
 * Which mail the email adapter never answers: its own, automatic mail (RFC 3834
 * `Auto-Submitted`, vacation responders), bulk and list mail, bounces and senders that
 * take no answer — answering any of these is how mail loops start — and, when `allow_from`
 * is set, senders not on it.
 */

/** The headers a decision looks at: lower-case name → its first value, unfolded. */
export type MailHeaders = ReadonlyMap<string, string>;

/** Who the adapter is and whom it answers. */
export interface MailRules {
  /** Its own address. */
  address: string;
  /** Senders it answers: addresses (`ann@example.org`) and domains (`@example.org`); empty: anyone. */
  allowFrom: readonly string[];
}

export interface MailSenders {
  /** The `From` address, or null when there is none. */
  from: string | null;
  /** Where an answer would go (`Reply-To`, else `From`). */
  replyTo: string | null;
}

/** Local parts of senders that never read an answer. */
const NO_ANSWER_SENDER = /^(mailer-daemon|postmaster|no-?reply|do-?not-?reply|bounces?)([+.-].*)?$/i;

const BULK_PRECEDENCE = new Set(['bulk', 'list', 'junk']);

/** Headers set by responders that predate `Auto-Submitted` (Exchange, procmail, vacation). */
const RESPONDER_HEADERS = ['x-autoreply', 'x-autorespond'];

function sameAddress(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

function noAnswerSender(address: string): boolean {
  const at = address.lastIndexOf('@');
  return NO_ANSWER_SENDER.test(at < 0 ? address : address.slice(0, at));
}

/** `Auto-Submitted: auto-replied; x=1` → `auto-replied`. */
function firstToken(value: string): string {
  return (value.split(';')[0] ?? '').trim().toLowerCase();
}

function allowed(address: string, allowFrom: readonly string[]): boolean {
  const a = address.trim().toLowerCase();
  return allowFrom.length === 0 || allowFrom.some((entry) => (entry.startsWith('@') ? a.endsWith(entry.toLowerCase()) : a === entry.toLowerCase()));
}

/** Why this mail must not be answered, in a few words; null when it may be. */
export function ignoreReason(headers: MailHeaders, senders: MailSenders, rules: MailRules): string | null {
  const { from, replyTo } = senders;
  if (from === null || from === '' || replyTo === null || replyTo === '') return 'it has no sender address';
  if (sameAddress(from, rules.address) || sameAddress(replyTo, rules.address)) return 'it is from the adapter\'s own address';
  if (!allowed(from, rules.allowFrom) || !allowed(replyTo, rules.allowFrom)) return 'its sender (or Reply-To) is not in allow_from';
  const auto = headers.get('auto-submitted');
  if (auto !== undefined && firstToken(auto) !== 'no') return `it is automatic mail (Auto-Submitted: ${firstToken(auto)})`;
  const precedence = headers.get('precedence');
  if (precedence !== undefined && BULK_PRECEDENCE.has(firstToken(precedence))) return `it is bulk mail (Precedence: ${firstToken(precedence)})`;
  if (headers.has('list-id')) return 'it came through a mailing list (List-Id)';
  const responder = RESPONDER_HEADERS.find((h) => headers.has(h));
  if (responder !== undefined) return `it is an automatic reply (${responder})`;
  if (headers.get('return-path')?.replace(/\s/g, '') === '<>') return 'it is a bounce (empty Return-Path)';
  if (noAnswerSender(from) || noAnswerSender(replyTo)) return 'its sender takes no answer (mailer-daemon, no-reply…)';
  return null;
}
