/**
 * SIGKILL after the agent's answer to a mail is recorded and before it is sent
 * (`adapter-before-reply`): the next start sends it exactly once, without asking the agent
 * again, and only then marks the mail seen. The ledger is outside the engine: the SMTP
 * server's captured mail and the fake model's requests, both in this test's process.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { answers, mail, mailSetup } from '../support/email-adapter.js';
import { harness } from '../../testkit/crash/support.js';

const CHILD = new URL('../../testkit/crash/email-child.ts', import.meta.url).pathname;

test('killed between the answer and the reply, the restarted engine sends the reply once', async (t) => {
  const setup = await mailSetup(t, answers('Tuesday at 10.'));
  const uid = setup.imap.deliver(mail('crash1'));
  const killed = await harness(setup.home, [], { script: CHILD, env: { KOWALSKI_CRASH_AT: 'adapter-before-reply:1' } });
  assert.equal(killed.signal, 'SIGKILL', `the crash point was reached:\n${killed.stderr}\n${killed.lines.join('\n')}`);
  assert.ok(killed.lines.includes('STARTED running'));
  assert.equal(setup.model.requests.length, 1, 'the agent answered');
  assert.equal(setup.smtp.sent.length, 0, 'nothing was sent before the kill');
  assert.deepEqual(setup.imap.flags(uid), [], 'the mail is still unseen');

  const again = await harness(setup.home, [], { script: CHILD });
  assert.equal(again.code, 0, again.stderr);
  assert.deepEqual(again.lines.slice(-2), ['STATE replied', 'DONE']);
  assert.equal(setup.smtp.sent.length, 1, 'the reply was sent once');
  assert.equal(setup.smtp.sent[0]?.text?.trim(), 'Tuesday at 10.');
  assert.equal(setup.smtp.sent[0]?.inReplyTo, '<crash1@example.org>');
  assert.equal(setup.model.requests.length, 1, 'the recorded answer was sent; the agent was not asked again');
  assert.deepEqual(setup.imap.flags(uid), ['\\Seen']);
});
