/** Slack requests: the signature (Slack's own published example), the timestamp window, and what a verified request asks for. */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { readSlackRequest } from '../../engine/adapters/slack/events.js';
import { verifySlack } from '../../engine/adapters/slack/signature.js';
import { slackText, SLACK_MAX_TEXT } from '../../engine/adapters/slack/web-api.js';

// From Slack's docs, "Verifying requests from Slack" (a slash command's form body).
const DOC_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const DOC_TS = '1531420618';
const DOC_BODY = 'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar'
  + '&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN'
  + '&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
const DOC_SIG = 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503';

const docHeaders = (over: Record<string, string | string[] | undefined> = {}) => ({ 'x-slack-signature': DOC_SIG, 'x-slack-request-timestamp': DOC_TS, ...over });
const docNow = Number(DOC_TS) * 1000;

test("Slack's published example verifies, and any change to it does not", () => {
  const rawBody = Buffer.from(DOC_BODY);
  assert.deepEqual(verifySlack({ headers: docHeaders(), rawBody, signingSecret: DOC_SECRET, nowMs: docNow }), { ok: true });
  const bad = (v: ReturnType<typeof verifySlack>, what: RegExp): void => {
    assert.equal(v.ok, false);
    if (!v.ok) {
      assert.equal(v.code, 'KW_ERR_WEBHOOK_SIGNATURE');
      assert.match(v.message, what);
    }
  };
  bad(verifySlack({ headers: docHeaders(), rawBody: Buffer.from(DOC_BODY + '&x=1'), signingSecret: DOC_SECRET, nowMs: docNow }), /does not match/);
  bad(verifySlack({ headers: docHeaders(), rawBody, signingSecret: 'another-secret', nowMs: docNow }), /does not match/);
  bad(verifySlack({ headers: docHeaders({ 'x-slack-request-timestamp': '1531420619' }), rawBody, signingSecret: DOC_SECRET, nowMs: docNow }), /does not match/);
  bad(verifySlack({ headers: docHeaders({ 'x-slack-signature': undefined }), rawBody, signingSecret: DOC_SECRET, nowMs: docNow }), /X-Slack-Signature is missing/);
  bad(verifySlack({ headers: docHeaders({ 'x-slack-request-timestamp': undefined }), rawBody, signingSecret: DOC_SECRET, nowMs: docNow }), /Timestamp is missing/);
  bad(verifySlack({ headers: docHeaders({ 'x-slack-signature': 'v1=' + DOC_SIG.slice(3) }), rawBody, signingSecret: DOC_SECRET, nowMs: docNow }), /"v0=" and 64 hex/);
  bad(verifySlack({ headers: docHeaders({ 'x-slack-signature': DOC_SIG.slice(0, -2) }), rawBody, signingSecret: DOC_SECRET, nowMs: docNow }), /64 hex/);
  bad(verifySlack({ headers: docHeaders({ 'x-slack-request-timestamp': '1531420618.5' }), rawBody, signingSecret: DOC_SECRET, nowMs: docNow }), /digits only/);
  // Two different signatures: a request is signed once.
  bad(verifySlack({ headers: docHeaders({ 'x-slack-signature': [DOC_SIG, `v0=${'0'.repeat(64)}`] }), rawBody, signingSecret: DOC_SECRET, nowMs: docNow }), /missing \(or given twice\)/);
  bad(verifySlack({ headers: docHeaders(), rawBody, signingSecret: '', nowMs: docNow }), /empty/);
});

test('a genuine signature outside 300 s either way is stale; at 300 s it is fine', () => {
  const rawBody = Buffer.from(DOC_BODY);
  for (const offset of [301, -301]) {
    const v = verifySlack({ headers: docHeaders(), rawBody, signingSecret: DOC_SECRET, nowMs: docNow + offset * 1000 });
    assert.equal(v.ok, false);
    if (!v.ok) {
      assert.equal(v.code, 'KW_ERR_WEBHOOK_STALE');
      assert.match(v.message, offset > 0 ? /301 s in the past/ : /301 s in the future/);
    }
  }
  assert.equal(verifySlack({ headers: docHeaders(), rawBody, signingSecret: DOC_SECRET, nowMs: docNow + 300_999 }).ok, true);
  // A forgery never learns about the time: it is refused for its signature.
  const forged = verifySlack({ headers: docHeaders({ 'x-slack-signature': `v0=${'1'.repeat(64)}` }), rawBody, signingSecret: DOC_SECRET, nowMs: docNow + 3_600_000 });
  assert.equal(!forged.ok && forged.code, 'KW_ERR_WEBHOOK_SIGNATURE');
  assert.equal(verifySlack({ headers: docHeaders(), rawBody, signingSecret: DOC_SECRET, nowMs: NaN }).ok, false);
});

const BOT = 'UBOT1';
const json = (v: unknown): Buffer => Buffer.from(JSON.stringify(v));
const envelope = (event: Record<string, unknown>, eventId = 'Ev01'): Buffer => json({ type: 'event_callback', event_id: eventId, team_id: 'T1', event });

test('a message becomes an inbound message answered in its thread, deduplicated by its channel and ts too', () => {
  const top = readSlackRequest(envelope({ type: 'app_mention', user: 'U2', channel: 'C9', ts: '1700000000.000100', text: `<@${BOT}> what is   due today?` }), BOT);
  assert.deepEqual(top, {
    kind: 'message',
    message: {
      deliveryId: 'Ev01', dedupeKeys: ['msg:C9:1700000000.000100'], conversation: 'C9:1700000000.000100', from: 'U2',
      text: 'what is due today?', replyTo: { channel: 'C9', thread_ts: '1700000000.000100' },
    },
  });
  const inThread = readSlackRequest(envelope({ type: 'message', user: 'U2', channel: 'C9', ts: '1700000050.000200', thread_ts: '1700000000.000100', text: 'and <@U3> too?' }, 'Ev02'), BOT);
  assert.equal(inThread.kind, 'message');
  if (inThread.kind === 'message') {
    assert.equal(inThread.message.conversation, 'C9:1700000000.000100', 'a reply in a thread continues its conversation');
    assert.deepEqual(inThread.message.replyTo, { channel: 'C9', thread_ts: '1700000000.000100' });
    assert.deepEqual(inThread.message.dedupeKeys, ['msg:C9:1700000050.000200']);
    assert.equal(inThread.message.text, 'and <@U3> too?', 'only our own mention is taken out');
  }
});

test('bots, our own messages, edits, joins and other events are ignored; the URL challenge is answered', () => {
  const base = { type: 'message', user: 'U2', channel: 'C9', ts: '1700000000.000100', text: 'hi' };
  const reason = (event: Record<string, unknown>): string => {
    const r = readSlackRequest(envelope(event), BOT);
    return r.kind === 'ignored' ? r.reason : r.kind;
  };
  assert.equal(reason({ ...base, bot_id: 'B1' }), 'a bot wrote it');
  assert.equal(reason({ ...base, subtype: 'bot_message' }), 'a bot wrote it');
  assert.equal(reason({ ...base, user: BOT }), 'our own message');
  assert.match(reason({ ...base, subtype: 'message_changed' }), /not a person writing/);
  assert.match(reason({ ...base, subtype: 'channel_join' }), /not a person writing/);
  assert.match(reason({ ...base, type: 'reaction_added' }), /not a message/);
  assert.equal(reason({ ...base, text: `<@${BOT}>` }), 'the message holds no text');
  assert.equal(reason({ ...base, subtype: 'file_share' }), 'message');
  assert.deepEqual(readSlackRequest(json({ type: 'url_verification', challenge: 'abc123', token: 'x' }), BOT), { kind: 'challenge', challenge: 'abc123' });
  assert.equal(readSlackRequest(json({ type: 'app_rate_limited' }), BOT).kind, 'ignored');
  assert.throws(() => readSlackRequest(Buffer.from('payload=%7B%7D'), BOT), { code: 'KW_ERR_BAD_REQUEST' });
  assert.throws(() => readSlackRequest(json({ type: 'event_callback', event: base }), BOT), /event_id/);
  assert.throws(() => readSlackRequest(envelope({ ...base, ts: 'yesterday' }), BOT), /ts/);
});

test("an answer is escaped as Slack asks (no <!channel> ping) and cut to what Slack keeps", () => {
  assert.equal(slackText('a <!channel> & <https://x|y>'), 'a &lt;!channel&gt; &amp; &lt;https://x|y&gt;');
  const long = slackText('&'.repeat(SLACK_MAX_TEXT));
  assert.ok(long.length <= SLACK_MAX_TEXT);
  assert.match(long, /&amp;\n… \(the answer was cut/);
});

test('the example signature is what HMAC-SHA256 of v0:ts:body gives (the scheme, not just the vector)', () => {
  const ts = '1700000000';
  const body = '{"type":"url_verification","challenge":"c"}';
  const sig = `v0=${crypto.createHmac('sha256', 's3cret').update(`v0:${ts}:${body}`).digest('hex')}`;
  assert.equal(verifySlack({ headers: { 'x-slack-signature': sig, 'x-slack-request-timestamp': ts }, rawBody: Buffer.from(body), signingSecret: 's3cret', nowMs: Number(ts) * 1000 }).ok, true);
});
