/** Discord interactions: Ed25519 over timestamp + body with a key pair made here, the public key's checks, and what an interaction asks for. */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { discordContent, DISCORD_MAX_CONTENT } from '../../engine/adapters/discord/api.js';
import { readDiscordRequest } from '../../engine/adapters/discord/interactions.js';
import { discordPublicKey, verifyDiscord } from '../../engine/adapters/discord/signature.js';

const pair = crypto.generateKeyPairSync('ed25519');
const publicHex = pair.publicKey.export({ format: 'der', type: 'spki' }).subarray(-32).toString('hex');
const NOW = 1_700_000_000_000;
const sign = (ts: string, body: string, key = pair.privateKey): string => crypto.sign(null, Buffer.from(ts + body), key).toString('hex');

function key(): crypto.KeyObject {
  const k = discordPublicKey(publicHex);
  assert.ok(typeof k !== 'string', String(k));
  return k;
}

test('a signature by the key verifies; every other one is refused', () => {
  const ts = String(NOW / 1000);
  const body = '{"type":1}';
  const check = (headers: Record<string, string | undefined>, rawBody = body, nowMs = NOW) => verifyDiscord({ headers, rawBody: Buffer.from(rawBody), publicKey: key(), nowMs });
  assert.deepEqual(check({ 'x-signature-ed25519': sign(ts, body), 'x-signature-timestamp': ts }), { ok: true });
  const refused = (v: ReturnType<typeof verifyDiscord>, what: RegExp, code = 'KW_ERR_WEBHOOK_SIGNATURE'): void => {
    assert.equal(v.ok, false);
    if (!v.ok) {
      assert.equal(v.code, code);
      assert.match(v.message, what);
    }
  };
  const other = crypto.generateKeyPairSync('ed25519').privateKey;
  refused(check({ 'x-signature-ed25519': sign(ts, body, other), 'x-signature-timestamp': ts }), /does not verify/);
  refused(check({ 'x-signature-ed25519': sign(ts, body), 'x-signature-timestamp': ts }, '{"type":2}'), /does not verify/);
  refused(check({ 'x-signature-ed25519': sign(ts, body), 'x-signature-timestamp': String(NOW / 1000 + 1) }), /does not verify/);
  refused(check({ 'x-signature-timestamp': ts }), /X-Signature-Ed25519 is missing/);
  refused(check({ 'x-signature-ed25519': sign(ts, body) }), /X-Signature-Timestamp is missing/);
  refused(check({ 'x-signature-ed25519': 'zz' + sign(ts, body).slice(2), 'x-signature-timestamp': ts }), /128 hex digits/);
  refused(check({ 'x-signature-ed25519': sign(ts, body).slice(2), 'x-signature-timestamp': ts }), /128 hex digits/);
  refused(check({ 'x-signature-ed25519': sign('ts', body), 'x-signature-timestamp': 'ts' }), /digits only/);
  refused(check({ 'x-signature-ed25519': sign(ts, body), 'x-signature-timestamp': ts }, body, NOW + 301_000), /301 s in the past/, 'KW_ERR_WEBHOOK_STALE');
});

test('the public key must be 64 hex digits of an Ed25519 key', () => {
  assert.match(String(discordPublicKey(publicHex.slice(2))), /64 hex digits \(got 62 characters\)/);
  assert.match(String(discordPublicKey('g'.repeat(64))), /not all hex/);
  assert.equal(typeof discordPublicKey(publicHex.toUpperCase()), 'object');
});

const command = (options: unknown[], extra: Record<string, unknown> = {}): Buffer => Buffer.from(JSON.stringify({
  id: '1100000000000000001', application_id: '99', type: 2, token: 'tok-1', channel_id: '555',
  member: { user: { id: '777', username: 'ada' } }, data: { id: '5', name: 'ask', type: 1, options }, ...extra,
}));

test('a command becomes an inbound message from its text option', () => {
  const r = readDiscordRequest(command([{ name: 'tone', type: 3, value: 'short' }, { name: 'prompt', type: 3, value: ' what is due? ' }]));
  assert.deepEqual(r, {
    kind: 'command',
    message: { deliveryId: '1100000000000000001', conversation: '555:777', from: 'ada (777)', text: 'what is due?', replyTo: { token: 'tok-1' } },
  });
  const sub = readDiscordRequest(command([{ name: 'agent', type: 1, options: [{ name: 'q', type: 3, value: 'inside a subcommand' }] }], { member: undefined, user: { id: '778' } }));
  assert.equal(sub.kind === 'command' && sub.message.text, 'inside a subcommand');
  assert.equal(sub.kind === 'command' && sub.message.conversation, '555:778');
  assert.deepEqual(readDiscordRequest(command([{ name: 'count', type: 4, value: 3 }])), { kind: 'no-text', command: 'ask' });
  assert.deepEqual(readDiscordRequest(Buffer.from('{"type":1}')), { kind: 'ping' });
  assert.deepEqual(readDiscordRequest(Buffer.from('{"type":4}')), { kind: 'autocomplete' });
  assert.deepEqual(readDiscordRequest(Buffer.from('{"type":3}')), { kind: 'other', type: 3 });
  assert.throws(() => readDiscordRequest(Buffer.from('not json')), { code: 'KW_ERR_BAD_REQUEST' });
  assert.throws(() => readDiscordRequest(command([], { token: '' })), /token/);
});

test('an answer longer than Discord shows is cut with a note', () => {
  const cut = discordContent('x'.repeat(5000));
  assert.equal(cut.length, DISCORD_MAX_CONTENT);
  assert.match(cut, /cut: the answer is longer than Discord shows\)$/);
  assert.equal(discordContent('ok'), 'ok');
});
