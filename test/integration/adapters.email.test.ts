import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import { createEngine } from '../../engine/index.js';
import type { Engine } from '../../engine/index.js';
import { cleanups } from '../../testkit/cleanup.js';
import { answers, mail, mailSetup, OWN, PASSWORD_ENV } from '../support/email-adapter.js';
import type { MailSetup } from '../support/email-adapter.js';
import { IMAP_PASSWORD } from '../support/mail-servers.js';
import { waitFor } from '../../testkit/wait.js';
import { testOwnCode } from '../../testkit/dist.js';

/** The engine on the setup's folder, its adapters started (what the server does). */
async function open(t: TestContext, setup: MailSetup, replyBackoffMs: number[] = [200]): Promise<Engine> {
  const engine = await createEngine({ ownCode: testOwnCode(), dataDir: setup.home, adapterReplyBackoffMs: replyBackoffMs });
  cleanups(t)(() => engine.close());
  await engine.adapters.start();
  return engine;
}

test('a mail arrives: the agent reads its new text, its answer is sent threaded with the right headers, then the original is seen', async (t) => {
  const setup = await mailSetup(t, answers('Tuesday at 10 works.'));
  const uid = setup.imap.deliver(mail('m2', 'References: <m1@example.org>\nIn-Reply-To: <m1@example.org>\n',
    'Can we meet on Tuesday?\n\nOn Mon, 30 Nov 2026 at 09:00, Agent <agent@example.com> wrote:\n> When suits you?\n\n-- \nAnn Example\nExample Ltd'));
  const engine = await open(t, setup);
  assert.equal(engine.adapters.status('mail').state, 'running');
  await waitFor(() => setup.smtp.sent.length === 1, 'the reply to be sent');
  const sent = setup.smtp.sent[0]!;
  assert.equal(sent.from?.text, OWN);
  assert.equal((Array.isArray(sent.to) ? sent.to[0] : sent.to)?.text, 'ann@example.org');
  assert.equal(sent.subject, 'Re: Plans');
  assert.equal(sent.inReplyTo, '<m2@example.org>');
  assert.deepEqual(sent.references, ['<m1@example.org>', '<m2@example.org>']);
  assert.equal(sent.headers.get('auto-submitted'), 'auto-replied');
  assert.equal(sent.text?.trim(), 'Tuesday at 10 works.');
  await waitFor(() => setup.imap.flags(uid).includes('\\Seen'), 'the original to be marked seen');
  await waitFor(() => engine.adapters.record(1)?.state === 'replied', 'the record to say replied');
  const asked = JSON.stringify(setup.model.requests.map((r) => r.body.messages));
  assert.match(asked, /Can we meet on Tuesday\?/);
  assert.doesNotMatch(asked, /When suits you|Example Ltd/, 'quoted text and the signature are not given to the agent');
  const record = engine.adapters.record(1);
  assert.equal(record?.state, 'replied');
  assert.equal(record?.conversation, '<m1@example.org>', 'the thread is the conversation');
  assert.ok(engine.adapters.status('mail').lastActivityAt !== null);
});

test('no answer to an auto-reply, a bulk mail, a list mail, a bounce or its own address; the human mail beside them is answered', async (t) => {
  const setup = await mailSetup(t, answers('Noted.'));
  const robots = [
    setup.imap.deliver(mail('auto', 'Auto-Submitted: auto-replied\n', 'I am out of office.')),
    setup.imap.deliver(mail('bulk', 'Precedence: bulk\n', 'Our newsletter.')),
    setup.imap.deliver(mail('list', 'List-Id: <team.lists.example.org>\n', 'List traffic.')),
    setup.imap.deliver(mail('bounce').replace('From: Ann <ann@example.org>', 'From: MAILER-DAEMON@example.org')),
    setup.imap.deliver(mail('own').replace('From: Ann <ann@example.org>', `From: Agent <${OWN}>`)),
  ];
  const human = setup.imap.deliver(mail('human'));
  const engine = await open(t, setup);
  await waitFor(() => setup.imap.flags(human).includes('\\Seen'), 'the human mail to be answered');
  for (const uid of robots) assert.deepEqual(setup.imap.flags(uid), ['\\Seen'], `mail ${uid} is marked seen, not answered`);
  assert.equal(setup.smtp.sent.length, 1);
  assert.equal(setup.smtp.sent[0]?.inReplyTo, '<human@example.org>');
  assert.equal(setup.model.requests.length, 1, 'one turn: the robots started none');
  assert.equal(engine.adapters.record(2), undefined, 'nothing recorded for them');
});

test('an SMTP send refused the first time is tried again once: exactly one reply, the original seen only after it', async (t) => {
  const setup = await mailSetup(t, answers('Yes.'));
  setup.smtp.refuseNext(1);
  const uid = setup.imap.deliver(mail('r1'));
  const engine = await open(t, setup, [300]);
  await waitFor(() => setup.smtp.refused === 1, 'the first send to be refused');
  assert.deepEqual(setup.imap.flags(uid), [], 'not seen while unanswered');
  await waitFor(() => engine.adapters.record(1)?.state === 'replied', 'the reply to be sent');
  assert.equal(setup.smtp.sent.length, 1);
  assert.equal(setup.smtp.refused, 1);
  assert.equal(engine.adapters.record(1)?.replyAttempts, 2, 'two sends tried: the refused one and the one that went');
  assert.match(engine.adapters.record(1)?.lastError ?? '', /SMTP 127\.0\.0\.1:\d+: .*try again later/);
  await waitFor(() => setup.imap.flags(uid).includes('\\Seen'), 'the original to be marked seen');
  assert.equal(setup.model.requests.length, 1, 'the agent answered once');
});

test('closed between the answer and its reply, the reopened engine sends the reply once and asks the agent nothing more', async (t) => {
  const setup = await mailSetup(t, answers('See you then.'));
  setup.smtp.refuseNext(1000);
  const uid = setup.imap.deliver(mail('k1'));
  const first = await open(t, setup, [60_000]);
  await waitFor(() => first.adapters.record(1)?.replyAttempts === 1, 'a failed send, the answer recorded');
  assert.equal(first.adapters.record(1)?.state, 'answered');
  await first.close();
  setup.smtp.refuseNext(0);
  const second = await open(t, setup, [60_000]);
  await waitFor(() => second.adapters.record(1)?.state === 'replied', 'the reply after the restart');
  await waitFor(() => setup.imap.flags(uid).includes('\\Seen'), 'the original to be marked seen');
  assert.equal(setup.smtp.sent.length, 1);
  assert.equal(setup.smtp.sent[0]?.text?.trim(), 'See you then.');
  assert.equal(setup.model.requests.length, 1, 'the answer was recorded, not asked again');
  assert.equal(second.adapters.record(2), undefined, 'the still-unseen mail read again after the restart was a duplicate');
});

test('a wrong IMAP password makes the adapter error at start, the reason named and no secret shown; the engine goes on', async (t) => {
  const setup = await mailSetup(t, answers('-'), 'password = "not-the-password-42"');
  const engine = await open(t, setup);
  const status = engine.adapters.status('mail');
  assert.equal(status.state, 'error');
  assert.match(status.lastError ?? '', /IMAP 127\.0\.0\.1:\d+: login as agent refused/);
  const shown = JSON.stringify(engine.adapters.list());
  assert.doesNotMatch(shown, /not-the-password-42/);
  assert.equal(setup.smtp.sent.length, 0);
  assert.ok(engine.chat.list().length >= 0, 'the engine still serves');
});

test('the status shows the settings with every password masked', async (t) => {
  const setup = await mailSetup(t, answers('-'));
  const engine = await open(t, setup);
  const shown = JSON.stringify(engine.adapters.status('mail').settings);
  assert.doesNotMatch(shown, new RegExp(IMAP_PASSWORD));
  assert.match(shown, new RegExp(`\\(from \\$${PASSWORD_ENV}\\)`));
});
