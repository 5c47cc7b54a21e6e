/** What a plugin adapter's `receive` answers, checked by the host before anything is recorded: the shape, each message's fields, the bounds; defaults filled in. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MAX_MESSAGES_PER_REQUEST, readReceiveAnswer } from '../../engine/adapters/plugin/answer.js';

const read = (value: unknown) => readReceiveAnswer('hello', 'relay', value);

function refused(value: unknown, message: RegExp): void {
  assert.throws(() => read(value), (err: any) => err.code === 'KW_ERR_PLUGIN_ADAPTER' && message.test(err.message));
}

test('a message with only a delivery id and text gets its conversation from the id and its sender from the plugin; status and body pass through', () => {
  assert.deepEqual(read({ messages: [{ deliveryId: 'd1', text: 'hi' }] }), {
    messages: [{ deliveryId: 'd1', conversation: 'd1', from: 'hello', text: 'hi', replyTo: {} }],
  });
  assert.deepEqual(read({ status: 401, body: { ok: false }, messages: [] }), { status: 401, body: { ok: false }, messages: [] });
  assert.deepEqual(read({ status: 204 }), { status: 204, messages: [] });
  const full = read({ messages: [{ deliveryId: 'd2', conversation: 'ops', from: 'ci', text: 'go', dedupeKeys: ['k1'], replyTo: { room: 'r' } }] });
  assert.deepEqual(full.messages[0], { deliveryId: 'd2', conversation: 'ops', from: 'ci', text: 'go', dedupeKeys: ['k1'], replyTo: { room: 'r' } });
});

test('anything else is refused with KW_ERR_PLUGIN_ADAPTER naming the field', () => {
  refused(null, /adapter relay's receive answered with something that is not an object/);
  refused('ok', /not an object/);
  refused({ messages: [], extra: 1 }, /answered extra which is not a known field/);
  refused({ status: 500 }, /answered status 500: it must be a whole number from 200 to 299 or 400 to 499/);
  refused({ status: 302 }, /status 302/);
  refused({ messages: {} }, /messages that is not an array/);
  refused({ messages: Array.from({ length: MAX_MESSAGES_PER_REQUEST + 1 }, (_, i) => ({ deliveryId: `d${i}`, text: 'x' })) }, /at most 20 per request/);
  refused({ messages: [{ text: 'no id' }] }, /messages\[0\]\.deliveryId that is not a string of 1 to 200 characters/);
  refused({ messages: [{ deliveryId: 'd', text: ' ' }] }, /messages\[0\]\.text/);
  refused({ messages: [{ deliveryId: 'd', text: 'x'.repeat(100_001) }] }, /messages\[0\]\.text that is not a string of 1 to 100000 characters/);
  refused({ messages: [{ deliveryId: 'd', text: 'x', sessionId: 's' }] }, /messages\[0\]\.sessionId which is not a known field/);
  refused({ messages: [{ deliveryId: 'd', text: 'x', dedupeKeys: [''] }] }, /dedupeKeys/);
  refused({ messages: [{ deliveryId: 'd', text: 'x', replyTo: [] }] }, /replyTo that is not an object/);
  refused({ messages: [{ deliveryId: 'd', text: 'x', replyTo: { big: 'x'.repeat(20_000) } }] }, /replyTo that is not an object of at most 16384 bytes/);
});
