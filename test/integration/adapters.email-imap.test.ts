import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as imap from 'imapflow';
import * as mailparser from 'mailparser';
import { MAX_MAILS_PER_POLL, pollMemory, pollOnce } from '../../engine/adapters/email/poll.js';
import type { PollMemory } from '../../engine/adapters/email/poll.js';
import { pollLoop } from '../../engine/adapters/email/poll-loop.js';
import type { EmailSettings } from '../../engine/adapters/email/settings.js';
import type { Accepted, InboundMessage, InboundRecord, InboundState } from '../../engine/adapters/types.js';
import { IMAP_PASSWORD, IMAP_USER, startImap } from '../support/mail-servers.js';
import type { FakeImap } from '../support/mail-servers.js';
import { waitFor } from '../../testkit/wait.js';

const OWN = 'agent@example.com';

function settings(server: FakeImap, over: Partial<EmailSettings['imap']> = {}): EmailSettings {
  return {
    address: OWN,
    imap: { host: '127.0.0.1', port: server.port, secure: false, user: IMAP_USER, password: IMAP_PASSWORD, ...over },
    smtp: { host: '127.0.0.1', port: 1, secure: false, user: null, password: null },
    pollSecs: 5,
    mailbox: 'INBOX',
    allowFrom: [],
  };
}

function mail(id: string, headers = '', body = 'What is on today?'): string {
  return `From: Ann <ann@example.org>\nTo: ${OWN}\nSubject: Plans ${id}\nMessage-ID: <${id}@example.org>\n${headers}\n${body}`;
}

/** The host's side as the poll sees it: what was accepted, each delivery id once (states set by the test). */
function recordingHost() {
  const records = new Map<string, InboundRecord>();
  const accepted: InboundMessage[] = [];
  return {
    accepted,
    activities: 0,
    failures: [] as Error[],
    /** Delivery ids whose accept throws (as the host does for a message it cannot take). */
    refuse: new Set<string>(),
    setState(deliveryId: string, state: InboundState) {
      const r = records.get(deliveryId);
      if (r === undefined) throw new Error(`no record ${deliveryId}`);
      r.state = state;
    },
    accept(message: InboundMessage): Accepted {
      if (this.refuse.has(message.deliveryId)) throw new Error('KW_ERR_INPUT_INVALID: refused');
      const before = records.get(message.deliveryId);
      if (before !== undefined) return { status: 'duplicate', record: before, done: Promise.resolve(before) };
      accepted.push(message);
      const record: InboundRecord = {
        id: records.size + 1, adapter: 'mail', ...message, state: 'received', sessionId: null, turn: null, answer: null, replyAttempts: 0, lastError: null, createdAt: 0, updatedAt: 0,
      };
      records.set(message.deliveryId, record);
      return { status: 'accepted', record, done: new Promise(() => undefined) };
    },
    activity() {
      this.activities++;
    },
    failed(err: unknown) {
      this.failures.push(err as Error);
    },
  };
}

/** One poll with the test's host and memory. */
function poll(server: FakeImap, host: ReturnType<typeof recordingHost>, memory: PollMemory): Promise<void> {
  return pollOnce({ imap, mailparser, settings: settings(server), host, memory });
}

test('a poll hands each unseen mail to the host, oldest first, and leaves it unseen until it is answered', async (t) => {
  const server = await startImap(t);
  const old = server.deliver(mail('old'));
  const a = server.deliver(mail('a'));
  const host = recordingHost();
  const memory = pollMemory();
  await poll(server, host, memory);
  assert.deepEqual(host.accepted.map((m) => m.deliveryId), ['<old@example.org>', '<a@example.org>']);
  assert.deepEqual(host.accepted[1]?.replyTo, { to: 'ann@example.org', subject: 'Plans a', messageId: '<a@example.org>', references: [], mailbox: 'INBOX', uid: a, uidValidity: memory.uidValidity });
  assert.deepEqual([server.flags(old), server.flags(a)], [[], []], 'taken mail stays unseen');
  assert.equal(host.activities, 1);
  const b = server.deliver(mail('b'));
  await poll(server, host, memory);
  assert.deepEqual(host.accepted.map((m) => m.deliveryId), ['<old@example.org>', '<a@example.org>', '<b@example.org>'], 'mail handed over is not read again');
  await poll(server, host, pollMemory());
  assert.equal(host.accepted.length, 3, 'after a restart (nothing remembered) the host finds them duplicates');
  assert.deepEqual(server.flags(b), []);
});

test('mail never answered is marked seen at once and not handed over: own, automatic, bulk, list', async (t) => {
  const server = await startImap(t);
  const uids = [
    server.deliver(mail('own').replace('From: Ann <ann@example.org>', `From: ${OWN}`)),
    server.deliver(mail('auto', 'Auto-Submitted: auto-replied\n')),
    server.deliver(mail('bulk', 'Precedence: bulk\n')),
    server.deliver(mail('list', 'List-Id: <news.example.org>\n')),
  ];
  const human = server.deliver(mail('human'));
  const host = recordingHost();
  await poll(server, host, pollMemory());
  assert.deepEqual(host.accepted.map((m) => m.deliveryId), ['<human@example.org>']);
  for (const uid of uids) assert.deepEqual(server.flags(uid), ['\\Seen']);
  assert.deepEqual(server.flags(human), []);
});

test('a mail already replied to but still unseen (its mark after the send was lost) is marked seen when read again, not answered again', async (t) => {
  const server = await startImap(t);
  const uid = server.deliver(mail('r'));
  const host = recordingHost();
  await poll(server, host, pollMemory());
  host.setState('<r@example.org>', 'answering');
  await poll(server, host, pollMemory());
  assert.deepEqual(server.flags(uid), [], 'still being answered: left unseen');
  host.setState('<r@example.org>', 'replied');
  await poll(server, host, pollMemory());
  assert.deepEqual(server.flags(uid), ['\\Seen']);
  assert.equal(host.accepted.length, 1);
});

test('a mail the host refuses is reported and skipped; the mails after it are still taken', async (t) => {
  const server = await startImap(t);
  const bad = server.deliver(mail('bad'));
  server.deliver(mail('good'));
  const host = recordingHost();
  host.refuse.add('<bad@example.org>');
  const memory = pollMemory();
  await poll(server, host, memory);
  assert.deepEqual(host.accepted.map((m) => m.deliveryId), ['<good@example.org>']);
  assert.match(host.failures[0]?.message ?? '', new RegExp(`^mail <bad@example.org> \\(UID ${bad}\\) was not taken: KW_ERR_INPUT_INVALID: refused`));
  assert.deepEqual(server.flags(bad), [], 'left unseen for a person');
  await poll(server, host, memory);
  assert.equal(host.failures.length, 1, 'not read again by the same adapter');
});

test(`a poll reads at most ${MAX_MAILS_PER_POLL} mails; the next reads the rest, not the ones it handed over`, async (t) => {
  const server = await startImap(t);
  for (let i = 0; i < MAX_MAILS_PER_POLL + 3; i++) server.deliver(mail(`n${i}`));
  const host = recordingHost();
  const memory = pollMemory();
  await poll(server, host, memory);
  assert.equal(host.accepted.length, MAX_MAILS_PER_POLL);
  assert.equal(host.accepted[0]?.deliveryId, '<n0@example.org>');
  await poll(server, host, memory);
  assert.equal(host.accepted.length, MAX_MAILS_PER_POLL + 3);
  assert.equal(host.accepted.at(-1)?.deliveryId, `<n${MAX_MAILS_PER_POLL + 2}@example.org>`);
});

test('a wrong password or mailbox is an error naming the server, never the password', async (t) => {
  const server = await startImap(t);
  await assert.rejects(pollOnce({ imap, mailparser, settings: settings(server, { password: 'wrong-pass-77' }), host: recordingHost(), memory: pollMemory() }), (err: Error) => {
    assert.match(err.message, new RegExp(`^IMAP 127\\.0\\.0\\.1:${server.port}: login as agent refused`));
    assert.doesNotMatch(err.message, /wrong-pass-77/);
    return true;
  });
  await assert.rejects(pollOnce({ imap, mailparser, settings: { ...settings(server), mailbox: 'Nope' }, host: recordingHost(), memory: pollMemory() }), /^Error: IMAP 127\.0\.0\.1:\d+: .*/);
});

test('the poll loop: polls never overlap, a failed poll is reported and the next one still comes, stop waits for the poll under way', async () => {
  const timers: Array<{ fn: () => void; ms: number; cancelled: boolean }> = [];
  const failures: unknown[] = [];
  const host = {
    setTimeout(fn: () => void, ms: number) {
      const timer = { fn, ms, cancelled: false };
      timers.push(timer);
      return { cancel: () => { timer.cancelled = true; } };
    },
    failed: (err: unknown) => void failures.push(err),
  };
  let running = 0;
  let maxRunning = 0;
  let calls = 0;
  let release: () => void = () => undefined;
  const loop = pollLoop(host, 5000, async () => {
    calls++;
    running++;
    maxRunning = Math.max(maxRunning, running);
    await new Promise<void>((resolve) => { release = resolve; });
    running--;
    if (calls === 1) throw new Error('IMAP down');
  });
  assert.deepEqual(timers.map((x) => x.ms), [0], 'the first poll at once');
  timers[0]?.fn();
  assert.equal(timers.length, 1, 'no next poll is armed while one runs');
  release();
  await waitFor(() => timers.length === 2, 'the next poll to be armed');
  assert.equal(timers[1]?.ms, 5000);
  assert.equal((failures[0] as Error).message, 'IMAP down');
  timers[1]?.fn();
  let stopped = false;
  const stopping = loop.stop().then(() => { stopped = true; });
  await Promise.resolve();
  assert.equal(stopped, false, 'stop waits for the poll under way');
  release();
  await stopping;
  assert.equal(timers.length, 2, 'nothing armed after stop');
  assert.equal(maxRunning, 1);
});
