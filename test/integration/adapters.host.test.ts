/** The adapter host: the durable record, dedupe, one session per conversation, waiting for a busy session, bounded reply retries, starts that fail or hang, enable/disable at run time. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { KowalskiError } from '../../core/index.js';
import { adapterSetup, captureAdapter, echoScript, lastUserText } from '../support/adapters.js';

const MAIL = '[adapters.mail]\ntype = "email"\nenabled = true\nagent = "assistant"\npassword = "hunter2-secret"\n';

test('a message becomes a chat turn whose answer is replied once; a redelivery (same id, or a dedupe key) is a duplicate', async (t) => {
  const capture = captureAdapter();
  const { engine, server } = await adapterSetup(t, echoScript, MAIL, { adapterDefinitions: [capture.definition] });
  await engine.adapters.start();
  assert.equal(engine.adapters.status('mail').state, 'running');
  const host = capture.hosts.get('mail')!;
  const first = host.accept({ deliveryId: 'm-1', dedupeKeys: ['msg:a'], conversation: 'thread-1', from: 'ann@example.com', text: 'hello there', replyTo: { to: 'ann' } });
  assert.equal(first.status, 'accepted');
  assert.equal(first.record.state, 'received');
  const done = await first.done;
  assert.equal(done.state, 'replied');
  assert.equal(done.answer, 'echo: hello there');
  assert.deepEqual(capture.replies.map((r) => [r.record.id, r.answer, r.record.replyTo]), [[done.id, 'echo: hello there', { to: 'ann' }]]);
  const session = engine.chat.summary(done.sessionId!);
  assert.equal(session.title, 'mail: thread-1');
  assert.equal(session.agent, 'assistant');

  const again = host.accept({ deliveryId: 'm-1', conversation: 'thread-1', from: 'ann@example.com', text: 'hello there', replyTo: {} });
  assert.equal(again.status, 'duplicate');
  assert.equal((await again.done).id, done.id);
  const byKey = host.accept({ deliveryId: 'm-1-redelivered', dedupeKeys: ['msg:a'], conversation: 'thread-1', from: 'ann@example.com', text: 'hello there', replyTo: {} });
  assert.equal(byKey.status, 'duplicate');
  assert.equal(byKey.record.id, done.id);
  assert.equal(server.requests.length, 1, 'one turn, one model call');
  assert.equal(capture.replies.length, 1);
  const status = engine.adapters.status('mail');
  assert.ok(status.lastActivityAt !== null);
  assert.equal(status.settings.password, '(set)', 'a secret is never shown back');
  assert.ok(!JSON.stringify(engine.adapters.list()).includes('hunter2'));
});

test('messages of one conversation share a session and wait for the turn under way (never KW_ERR_CHAT_BUSY); other conversations get their own', async (t) => {
  const capture = captureAdapter();
  const slowFirst = (body: any): { text: string; chunkDelayMs?: number } => {
    const text = lastUserText(body).split('\n').at(-1) ?? '';
    return { text: `echo: ${text}`, ...(text === 'one' ? { chunkDelayMs: 150 } : {}) };
  };
  const { engine } = await adapterSetup(t, slowFirst, MAIL, { adapterDefinitions: [capture.definition] });
  await engine.adapters.start();
  const host = capture.hosts.get('mail')!;
  const one = host.accept({ deliveryId: '1', conversation: 'c', from: 'a', text: 'one', replyTo: {} });
  const two = host.accept({ deliveryId: '2', conversation: 'c', from: 'a', text: 'two', replyTo: {} });
  const other = host.accept({ deliveryId: '3', conversation: 'd', from: 'b', text: 'three', replyTo: {} });
  assert.equal(two.record.state, 'received');
  const [r1, r2, r3] = await Promise.all([one.done, two.done, other.done]);
  assert.deepEqual([r1.state, r2.state, r3.state], ['replied', 'replied', 'replied']);
  assert.equal(r1.sessionId, r2.sessionId);
  assert.notEqual(r1.sessionId, r3.sessionId);
  assert.deepEqual([r1.turn, r2.turn], [1, 2]);
  assert.equal(r2.answer, 'echo: two');
  assert.deepEqual(capture.replies.filter((r) => r.record.conversation === 'c').map((r) => r.answer), ['echo: one', 'echo: two'], 'in order');
});

test('a reply that throws is tried again, bounded: then the message is failed with the error, counted in the status', async (t) => {
  const capture = captureAdapter();
  const { engine, server } = await adapterSetup(t, echoScript, MAIL, { adapterDefinitions: [capture.definition] });
  await engine.adapters.start();
  const host = capture.hosts.get('mail')!;
  capture.failReplies = 1;
  const once = await host.accept({ deliveryId: 'r-1', conversation: 'c1', from: 'a', text: 'recover', replyTo: {} }).done;
  assert.equal(once.state, 'replied');
  assert.equal(once.replyAttempts, 2);
  assert.equal(capture.replies.length, 1);

  capture.failReplies = 10;
  const failed = await host.accept({ deliveryId: 'r-2', conversation: 'c2', from: 'a', text: 'never', replyTo: {} }).done;
  assert.equal(failed.state, 'failed');
  assert.equal(failed.replyAttempts, 3, 'three attempts in all');
  assert.match(failed.lastError ?? '', /failed 3 times.*the channel is down/);
  assert.equal(capture.refused, 4);
  assert.equal(server.requests.length, 2, 'a retried reply never asks the model again');
  const status = engine.adapters.status('mail');
  assert.equal(status.state, 'running');
  assert.equal(status.errorCount, 1);
  assert.match(status.lastError ?? '', /the channel is down/);
});

test('an adapter whose start throws or hangs is error, never running; the others run; enable and disable at run time are persisted', async (t) => {
  const broken = captureAdapter();
  broken.startError = 'cannot log in with hunter2-secret';
  const good = captureAdapter();
  good.definition = { ...good.definition, type: 'calendar' };
  const hanging = captureAdapter();
  hanging.hang = true;
  hanging.definition = { ...hanging.definition, type: 'discord' };
  const config = `${MAIL}[adapters.cal]\ntype = "calendar"\nenabled = true\n[adapters.hang]\ntype = "discord"\nenabled = true\n[adapters.off]\ntype = "calendar"\n`;
  const { engine, home } = await adapterSetup(t, echoScript, config, { adapterDefinitions: [broken.definition, good.definition, hanging.definition], adapterStartTimeoutMs: 300 });
  await engine.adapters.start();
  const mail = engine.adapters.status('mail');
  assert.equal(mail.state, 'error');
  assert.match(mail.lastError ?? '', /^adapter mail did not start: cannot log in with \(secret\)$/, 'the secret never appears in the error');
  assert.equal(engine.adapters.status('hang').state, 'error');
  assert.match(engine.adapters.status('hang').lastError ?? '', /did not start within 0.3 s/);
  assert.equal(engine.adapters.status('cal').state, 'running');
  assert.deepEqual([engine.adapters.status('off').state, engine.adapters.status('off').enabled], ['stopped', false]);
  assert.throws(() => engine.adapters.target('email', 'mail'), (err: KowalskiError) => err.code === 'KW_ERR_ADAPTER_DISABLED');
  assert.throws(() => engine.adapters.status('nope'), (err: KowalskiError) => err.code === 'KW_ERR_ADAPTER_NOT_FOUND');

  const on = await engine.adapters.enable('off', 'operator (test)');
  assert.deepEqual([on.state, on.enabled], ['running', true]);
  const off = await engine.adapters.disable('cal', 'operator (test)');
  assert.deepEqual([off.state, off.enabled], ['stopped', false]);
  assert.equal(good.stops, 1);
  await engine.close();

  // The switches outlive the engine, over config.toml's enabled.
  const again = await adapterSetup(t, echoScript, config, { adapterDefinitions: [good.definition] }, home);
  assert.deepEqual([again.engine.adapters.status('off').enabled, again.engine.adapters.status('cal').enabled], [true, false]);
});
