import assert from 'node:assert/strict';
import { test } from 'node:test';
import { simpleParser } from 'mailparser';
import { MAX_TEXT_CHARS, messageText, stripQuoted } from '../../engine/adapters/email/body.js';
import { takeMail } from '../../engine/adapters/email/inbound.js';
import type { Taken } from '../../engine/adapters/email/inbound.js';
import { readReplyTo, replyMail, replySubject } from '../../engine/adapters/email/reply-mail.js';

const OWN = 'agent@example.com';
const PLACE = { mailbox: 'INBOX', uid: 7, uidValidity: '42' };

/** A raw mail: header lines, a blank line, the body. */
function raw(headers: Record<string, string>, body = 'Hello agent, what is on today?'): Buffer {
  const head = { From: 'Ann <ann@example.org>', To: OWN, Subject: 'Plans', 'Message-ID': '<m1@example.org>', ...headers };
  return Buffer.from(`${Object.entries(head).filter(([, v]) => v !== '').map(([k, v]) => `${k}: ${v}`).join('\r\n')}\r\n\r\n${body.replace(/\n/g, '\r\n')}`);
}

async function take(source: Buffer, allowFrom: string[] = []): Promise<Taken> {
  return takeMail(await simpleParser(source), source, PLACE, { address: OWN, allowFrom });
}

async function ignored(headers: Record<string, string>): Promise<string> {
  const t = await take(raw(headers));
  assert.equal(t.kind, 'ignore', `expected the mail with ${JSON.stringify(headers)} to be ignored`);
  return t.kind === 'ignore' ? t.reason : '';
}

test('a plain mail is taken: Message-ID is the delivery id, it starts its own thread, the reply goes to its sender', async () => {
  const t = await take(raw({}));
  assert.equal(t.kind, 'take');
  if (t.kind !== 'take') return;
  assert.deepEqual(t.message, {
    deliveryId: '<m1@example.org>',
    conversation: '<m1@example.org>',
    from: 'Ann <ann@example.org>',
    text: 'Hello agent, what is on today?',
    replyTo: { to: 'ann@example.org', subject: 'Plans', messageId: '<m1@example.org>', references: [], mailbox: 'INBOX', uid: 7, uidValidity: '42' },
  });
});

test('a mail in a thread joins the thread of its root (References[0], else In-Reply-To); Reply-To wins over From', async () => {
  const t = await take(raw({ 'Message-ID': '<m3@example.org>', References: '<root@x> <m2@x>', 'In-Reply-To': '<m2@x>', 'Reply-To': 'team@example.org' }));
  assert.ok(t.kind === 'take');
  assert.equal(t.message.conversation, '<root@x>');
  assert.equal(t.message.replyTo.to, 'team@example.org');
  assert.deepEqual(t.message.replyTo.references, ['<root@x>', '<m2@x>']);
  const only = await take(raw({ 'Message-ID': '<m4@example.org>', 'In-Reply-To': '<m2@x>' }));
  assert.ok(only.kind === 'take');
  assert.equal(only.message.conversation, '<m2@x>');
});

test('a mail without a Message-ID gets a stable delivery id from its header block', async () => {
  const a = await take(raw({ 'Message-ID': '' }));
  const b = await take(raw({ 'Message-ID': '' }, 'another body, same headers'));
  const c = await take(raw({ 'Message-ID': '', Subject: 'Other' }));
  assert.ok(a.kind === 'take' && b.kind === 'take' && c.kind === 'take');
  assert.match(a.message.deliveryId, /^sha256:[0-9a-f]{64}$/);
  assert.equal(a.message.deliveryId, b.message.deliveryId);
  assert.notEqual(a.message.deliveryId, c.message.deliveryId);
  assert.equal(a.message.conversation, a.message.deliveryId);
});

test('a hostile Message-ID longer than 200 characters is recorded as its hash, in the delivery id and the thread', async () => {
  const long = `<${'x'.repeat(300)}@example.org>`;
  const t = await take(raw({ 'Message-ID': long, References: long }));
  assert.ok(t.kind === 'take');
  assert.match(t.message.deliveryId, /^sha256:[0-9a-f]{64}$/);
  assert.equal(t.message.conversation, t.message.deliveryId);
  assert.equal(t.message.replyTo.messageId, long, 'the reply still threads under the real id');
});

test('a mail with neither text nor a subject is not handed over', async () => {
  const t = await take(raw({ Subject: '' }, '> only a quote'));
  assert.deepEqual(t.kind === 'ignore' ? t.reason : t.kind, 'it has neither text nor a subject');
});

test('never answered: its own address, automatic mail, bulk and list mail, bounces, senders that take no answer', async () => {
  assert.match(await ignored({ From: `Me <${OWN.toUpperCase()}>` }), /own address/);
  assert.match(await ignored({ 'Reply-To': OWN }), /own address/);
  assert.match(await ignored({ 'Auto-Submitted': 'auto-replied' }), /Auto-Submitted: auto-replied/);
  assert.match(await ignored({ 'Auto-Submitted': 'auto-generated; foo=bar' }), /auto-generated/);
  for (const p of ['bulk', 'list', 'junk', 'Bulk']) assert.match(await ignored({ Precedence: p }), /bulk mail/);
  assert.match(await ignored({ 'List-Id': 'News <news.example.org>' }), /mailing list/);
  assert.match(await ignored({ 'X-Autoreply': 'yes' }), /automatic reply/);
  assert.match(await ignored({ 'Return-Path': '<>' }), /bounce/);
  for (const from of ['MAILER-DAEMON@example.org', 'no-reply@shop.example', 'noreply+x@example.org', 'do-not-reply@example.org', 'postmaster@example.org']) {
    assert.match(await ignored({ From: from }), /takes no answer/, from);
  }
  assert.match(await ignored({ From: '' }), /no sender/);
});

test('with allow_from, only those senders are answered — and only when Reply-To is one of them too', async () => {
  const allow = ['boss@example.net', '@example.org'];
  assert.equal((await take(raw({}), allow)).kind, 'take', 'a domain listed');
  assert.equal((await take(raw({ From: 'Boss@Example.net' }), allow)).kind, 'take', 'an address listed, any case');
  for (const headers of [{ From: 'eve@evil.example' }, { From: 'eve@evil-example.org' }, { 'Reply-To': 'eve@evil.example' }] as Record<string, string>[]) {
    const t = await take(raw(headers), allow);
    assert.deepEqual(t.kind === 'ignore' ? t.reason : t.kind, 'its sender (or Reply-To) is not in allow_from', JSON.stringify(headers));
  }
});

test('taken despite the words: Auto-Submitted: no, Precedence: first-class, a sender named reply', async () => {
  for (const headers of [{ 'Auto-Submitted': 'no' } as Record<string, string>, { Precedence: 'first-class' }, { From: 'reply@example.org' }, { From: 'noreplyfan@example.org' }]) {
    assert.equal((await take(raw(headers))).kind, 'take', JSON.stringify(headers));
  }
});

test('quoted text is cut: > lines and their "On … wrote:" (also wrapped over two lines; top or bottom posting), the signature, Outlook\'s original message', () => {
  assert.equal(stripQuoted('Yes, Tuesday works.\n\nOn Mon, 1 Dec 2026 at 10:00, Bob <bob@x.org> wrote:\n> Does Tuesday work?\n> Bob'), 'Yes, Tuesday works.');
  assert.equal(stripQuoted('Sure.\nOn Mon, 1 Dec 2026 at 10:00, Bob Long-Name\n<bob@x.org> wrote:\n\n> old'), 'Sure.');
  assert.equal(stripQuoted('Fine by me.\n\n-- \nAnn\nCEO, Example Ltd'), 'Fine by me.');
  assert.equal(stripQuoted('See below.\r\n-----Original Message-----\r\nFrom: Bob\r\nold text'), 'See below.');
  assert.equal(stripQuoted('> first question\nmy answer one\n> second question\nmy answer two'), 'my answer one\nmy answer two');
  assert.equal(stripQuoted('Am 1. Dez. 2026 um 10:00 schrieb Bob <bob@x.org>:\n> alt\nUnten geantwortet.'), 'Unten geantwortet.', 'bottom posting, a German attribution');
  assert.equal(stripQuoted('El lun, 1 dic 2026, Bob escribió:\n> viejo\nBien.'), 'Bien.');
});

test('an attribution-like sentence that quotes nothing is the sender\'s own text', () => {
  const text = 'On the budget, my accountant wrote:\nwe are fine until March.\nCan you check?';
  assert.equal(stripQuoted(text), text);
});

test('an HTML-only mail is read as text, its blockquote cut', async () => {
  const source = raw({ 'Content-Type': 'text/html; charset=utf-8' }, '<p>Book the <b>room</b>, please.</p><blockquote>Old question</blockquote>');
  const t = await take(source);
  assert.ok(t.kind === 'take');
  assert.equal(t.message.text, 'Book the room, please.');
});

test('an empty body is its subject; a long one is cut with a note', () => {
  assert.equal(messageText('> only a quote', 'Meeting at 3?'), 'Meeting at 3?');
  const long = messageText('x'.repeat(MAX_TEXT_CHARS + 10), 'S');
  assert.ok(long.startsWith('x'.repeat(MAX_TEXT_CHARS)));
  assert.match(long, /the rest of this mail was cut: it was 20010 characters/);
});

test('the reply: Re: once, threaded under the original, Auto-Submitted: auto-replied, from its own address, a Message-ID fixed by the original', async () => {
  const t = await take(raw({ 'Message-ID': '<m3@example.org>', References: '<root@x> <m2@x>' }));
  assert.ok(t.kind === 'take');
  const original = readReplyTo(JSON.parse(JSON.stringify(t.message.replyTo)) as Record<string, unknown>);
  const mail = replyMail(original, 'Tuesday it is.', OWN, t.message.deliveryId);
  assert.deepEqual({ ...mail, messageId: undefined }, {
    from: OWN, to: 'ann@example.org', subject: 'Re: Plans', text: 'Tuesday it is.', messageId: undefined,
    inReplyTo: '<m3@example.org>', references: ['<root@x>', '<m2@x>', '<m3@example.org>'], headers: { 'Auto-Submitted': 'auto-replied' },
  });
  assert.match(mail.messageId, /^<kowalski-reply\.[0-9a-f]{32}@example\.com>$/);
  assert.equal(replyMail(original, 'again', OWN, t.message.deliveryId).messageId, mail.messageId, 'a send repeated is the same mail');
  for (const s of ['Re: Plans', 'RE: Plans', 're:Plans', 'Re[2]: Plans']) assert.equal(replySubject(s), s);
  assert.equal(replySubject('Regards from Rome'), 'Re: Regards from Rome');
  assert.equal(replySubject(''), 'Re: ');
});

test('a record whose reply address is malformed is an error, not a mail to nowhere', () => {
  assert.throws(() => readReplyTo({ to: 'a@b.c' }), /reply address is malformed/);
});
