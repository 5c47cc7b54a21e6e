import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { deliveryIdOf, MAX_SIGNATURES, verifyWebhook } from '../../api/webhook-signature.js';
import type { VerifyWebhookInput, WebhookHeaders, WebhookVerdict } from '../../api/webhook-signature.js';

// GitHub, "Validating webhook deliveries" (docs.github.com): the published example.
const GH_SECRET = "It's a Secret to Everybody";
const GH_BODY = Buffer.from('Hello, World!');
const GH_SIGNATURE = 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17';

// Standard Webhooks reference libraries' "sign function works" vector
// (standard-webhooks/standard-webhooks, libraries/javascript/src/webhook.test.ts).
const SW_SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const SW_ID = 'msg_p5jXN8AQM9LWM0D4loKWxJek';
const SW_TS = 1614265330;
const SW_BODY = Buffer.from('{"test": 2432232314}');
const SW_SIGNATURE = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
const SW_NOW = SW_TS * 1000;

/** Independent signers (node:crypto directly), for cases the published vectors do not cover. */
function githubSign(secret: string, body: Buffer): string {
  return `sha256=${crypto.createHmac('sha256', secret).update(body).digest('hex')}`;
}
function standardSign(key: Buffer, id: string, ts: number, body: Buffer): string {
  return `v1,${crypto.createHmac('sha256', key).update(Buffer.concat([Buffer.from(`${id}.${ts}.`), body])).digest('base64')}`;
}
const SW_KEY = Buffer.from('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'base64');

function swHeaders(signature: string, ts: number = SW_TS, id = SW_ID): WebhookHeaders {
  return { 'webhook-id': id, 'webhook-timestamp': String(ts), 'webhook-signature': signature };
}
function gh(headers: WebhookHeaders, body = GH_BODY, secret = GH_SECRET): WebhookVerdict {
  return verifyWebhook({ headers, rawBody: body, secret, nowMs: SW_NOW });
}
function sw(headers: WebhookHeaders, over: Partial<VerifyWebhookInput> = {}): WebhookVerdict {
  return verifyWebhook({ headers, rawBody: SW_BODY, secret: SW_SECRET, nowMs: SW_NOW, ...over });
}
function refused(v: WebhookVerdict, code: 'KW_ERR_WEBHOOK_SIGNATURE' | 'KW_ERR_WEBHOOK_STALE', message: RegExp): void {
  assert.equal(v.ok, false, `expected a refusal, got ${JSON.stringify(v)}`);
  if (v.ok) return;
  assert.equal(v.code, code);
  assert.match(v.message, message);
}

test('the GitHub published example verifies, with its delivery id', () => {
  assert.equal(githubSign(GH_SECRET, GH_BODY), GH_SIGNATURE, 'the published vector itself');
  const v = gh({ 'x-hub-signature-256': GH_SIGNATURE, 'x-github-delivery': ' 72d3162e-cc78-11e3-81ab-4c9367dc0958 ' });
  assert.deepEqual(v, { ok: true, scheme: 'github', deliveryId: '72d3162e-cc78-11e3-81ab-4c9367dc0958' });
  assert.deepEqual(gh({ 'x-hub-signature-256': GH_SIGNATURE.toUpperCase().replace('SHA256=', 'sha256=') }), { ok: true, scheme: 'github' });
  assert.deepEqual(gh({ 'X-Hub-Signature-256': GH_SIGNATURE }), { ok: true, scheme: 'github' }, 'a header name in another case');
});

test('the Standard Webhooks published vector verifies with a whsec_ secret', () => {
  assert.equal(standardSign(SW_KEY, SW_ID, SW_TS, SW_BODY), SW_SIGNATURE, 'the published vector itself');
  assert.deepEqual(sw(swHeaders(SW_SIGNATURE)), { ok: true, scheme: 'standard', deliveryId: SW_ID, timestampMs: SW_TS * 1000 });
});

test('a raw secret (no whsec_ prefix) is used as its UTF-8 bytes', () => {
  const raw = 'a plain shared secret';
  const sig = standardSign(Buffer.from(raw, 'utf8'), SW_ID, SW_TS, SW_BODY);
  assert.equal(sw(swHeaders(sig), { secret: raw }).ok, true);
  // The vector's base64 text given without its prefix is therefore a different key.
  refused(sw(swHeaders(SW_SIGNATURE), { secret: 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }), 'KW_ERR_WEBHOOK_SIGNATURE', /does not match/);
  // GitHub secrets are always raw, even if they happen to start with whsec_.
  assert.equal(gh({ 'x-hub-signature-256': githubSign(SW_SECRET, GH_BODY) }, GH_BODY, SW_SECRET).ok, true);
});

test('a wrong secret is refused by both schemes', () => {
  refused(gh({ 'x-hub-signature-256': GH_SIGNATURE }, GH_BODY, "It's a Secret to Everybody!"), 'KW_ERR_WEBHOOK_SIGNATURE', /^X-Hub-Signature-256 does not match the body and the secret$/);
  refused(sw(swHeaders(SW_SIGNATURE), { secret: 'whsec_' + crypto.randomBytes(24).toString('base64') }), 'KW_ERR_WEBHOOK_SIGNATURE', /^webhook-signature does not match the body and the secret$/);
});

test('a body changed by one byte is refused', () => {
  const ghBody = Buffer.from(GH_BODY);
  ghBody[ghBody.length - 1] = ghBody[ghBody.length - 1]! ^ 1;
  refused(gh({ 'x-hub-signature-256': GH_SIGNATURE }, ghBody), 'KW_ERR_WEBHOOK_SIGNATURE', /does not match/);
  for (const i of [0, SW_BODY.length - 1]) {
    const body = Buffer.from(SW_BODY);
    body[i] = body[i]! ^ 0x20;
    refused(sw(swHeaders(SW_SIGNATURE), { rawBody: body }), 'KW_ERR_WEBHOOK_SIGNATURE', /does not match/);
  }
});

test('a signature made for another body, id or timestamp is refused', () => {
  refused(gh({ 'x-hub-signature-256': githubSign(GH_SECRET, Buffer.from('Goodbye, World!')) }), 'KW_ERR_WEBHOOK_SIGNATURE', /does not match/);
  refused(sw(swHeaders(standardSign(SW_KEY, SW_ID, SW_TS, Buffer.from('{"test": 1}')))), 'KW_ERR_WEBHOOK_SIGNATURE', /does not match/);
  refused(sw(swHeaders(SW_SIGNATURE, SW_TS, 'msg_other')), 'KW_ERR_WEBHOOK_SIGNATURE', /does not match/);
  refused(sw(swHeaders(SW_SIGNATURE, SW_TS + 1)), 'KW_ERR_WEBHOOK_SIGNATURE', /does not match/);
});

test('the signature covers the raw bytes, not a decoded string', () => {
  const body = Buffer.from([0x7b, 0xff, 0xfe, 0x7d]); // not UTF-8
  assert.equal(gh({ 'x-hub-signature-256': githubSign(GH_SECRET, body) }, body).ok, true);
  const lossy = Buffer.from(body.toString('utf8'), 'utf8');
  refused(gh({ 'x-hub-signature-256': githubSign(GH_SECRET, lossy) }, body), 'KW_ERR_WEBHOOK_SIGNATURE', /does not match/);
  assert.equal(sw(swHeaders(standardSign(SW_KEY, SW_ID, SW_TS, body)), { rawBody: body }).ok, true);
});

test('timestamps at the tolerance edge pass; one second beyond is stale, either way', () => {
  for (const [offsetSecs, ok] of [[300, true], [301, false], [-300, true], [-301, false]] as const) {
    const ts = SW_TS - offsetSecs; // now is SW_TS; positive offset = sent in the past
    const v = sw(swHeaders(standardSign(SW_KEY, SW_ID, ts, SW_BODY), ts));
    if (ok) assert.deepEqual(v, { ok: true, scheme: 'standard', deliveryId: SW_ID, timestampMs: ts * 1000 }, `offset ${offsetSecs}`);
    else refused(v, 'KW_ERR_WEBHOOK_STALE', offsetSecs > 0 ? /301 s in the past; at most 300 s/ : /301 s in the future; at most 300 s/);
  }
  // Whole seconds: 300.999 s after the timestamp is still within 300 s.
  assert.equal(sw(swHeaders(SW_SIGNATURE), { nowMs: SW_NOW + 300_999 }).ok, true);
  refused(sw(swHeaders(SW_SIGNATURE), { nowMs: SW_NOW + 301_000 }), 'KW_ERR_WEBHOOK_STALE', /in the past/);
});

test('a custom tolerance is honoured, and a broken clock or tolerance fails closed', () => {
  assert.equal(sw(swHeaders(SW_SIGNATURE), { nowMs: SW_NOW + 10_000, toleranceSecs: 10 }).ok, true);
  refused(sw(swHeaders(SW_SIGNATURE), { nowMs: SW_NOW + 11_000, toleranceSecs: 10 }), 'KW_ERR_WEBHOOK_STALE', /11 s in the past; at most 10 s/);
  refused(sw(swHeaders(SW_SIGNATURE), { nowMs: SW_NOW + 1000, toleranceSecs: 0 }), 'KW_ERR_WEBHOOK_STALE', /1 s in the past/);
  refused(sw(swHeaders(SW_SIGNATURE), { nowMs: Number.NaN }), 'KW_ERR_WEBHOOK_STALE', /webhook-timestamp/);
  // A tolerance that is not a number falls back to the default 300 s instead of letting everything through.
  refused(sw(swHeaders(SW_SIGNATURE), { nowMs: SW_NOW + 301_000, toleranceSecs: Number.NaN }), 'KW_ERR_WEBHOOK_STALE', /at most 300 s/);
  refused(sw(swHeaders(SW_SIGNATURE), { nowMs: SW_NOW + 301_000, toleranceSecs: -1 }), 'KW_ERR_WEBHOOK_STALE', /at most 300 s/);
});

test('a stale timestamp with a wrong signature is a signature refusal, not a staleness one', () => {
  refused(sw(swHeaders(SW_SIGNATURE), { nowMs: SW_NOW + 3_600_000, secret: 'whsec_AAAA' }), 'KW_ERR_WEBHOOK_SIGNATURE', /does not match/);
});

test('with several signatures, any one matching is enough', () => {
  const other = `v1,${crypto.randomBytes(32).toString('base64')}`;
  assert.equal(sw(swHeaders(`${other} ${SW_SIGNATURE}`)).ok, true);
  assert.equal(sw(swHeaders(`v1a,${crypto.randomBytes(64).toString('base64')} v2,abc ${SW_SIGNATURE} ${other}`)).ok, true, 'other versions are skipped');
  assert.equal(sw(swHeaders(`v1,!!not-base64!! ${SW_SIGNATURE}`)).ok, true, 'a malformed entry beside a good one');
  assert.equal(gh({ 'x-hub-signature-256': `${githubSign('other', GH_BODY)}, ${GH_SIGNATURE}` }).ok, true, 'repeated header joined by Node');
  refused(sw(swHeaders(`${other} v1,${crypto.randomBytes(32).toString('base64')}`)), 'KW_ERR_WEBHOOK_SIGNATURE', /does not match/);
  const many = Array.from({ length: MAX_SIGNATURES }, () => other);
  refused(sw(swHeaders([...many, SW_SIGNATURE].join(' '))), 'KW_ERR_WEBHOOK_SIGNATURE', new RegExp(`lists ${MAX_SIGNATURES + 1} signatures; at most ${MAX_SIGNATURES}`));
});

test('header arrays: repeated signature headers are all candidates; repeated ids must agree', () => {
  const bad = `v1,${crypto.randomBytes(32).toString('base64')}`;
  assert.equal(sw({ ...swHeaders(''), 'webhook-signature': [bad, SW_SIGNATURE] }).ok, true);
  assert.equal(sw({ ...swHeaders(''), 'webhook-signature': `${bad}, ${SW_SIGNATURE}` }).ok, true, 'as Node joins a repeated header');
  assert.equal(gh({ 'x-hub-signature-256': [githubSign('x', GH_BODY), GH_SIGNATURE] }).ok, true);
  assert.equal(sw({ ...swHeaders(SW_SIGNATURE), 'webhook-id': [SW_ID, SW_ID] }).ok, true);
  refused(sw({ ...swHeaders(SW_SIGNATURE), 'webhook-id': [SW_ID, 'msg_2'] }), 'KW_ERR_WEBHOOK_SIGNATURE', /webhook-id is given several times with different values/);
  refused(sw({ ...swHeaders(SW_SIGNATURE), 'webhook-timestamp': [String(SW_TS), '1'] }), 'KW_ERR_WEBHOOK_SIGNATURE', /webhook-timestamp is given several times/);
  assert.deepEqual(gh({ 'x-hub-signature-256': [GH_SIGNATURE], 'x-github-delivery': ['d1', 'd2'] }), { ok: true, scheme: 'github' }, 'ambiguous delivery id is dropped');
});

test('missing signature headers are refused with the expected names', () => {
  const message = /^no signature: expected X-Hub-Signature-256 or webhook-signature$/;
  refused(gh({}), 'KW_ERR_WEBHOOK_SIGNATURE', message);
  refused(gh({ 'x-github-delivery': 'd1', 'content-type': 'application/json' }), 'KW_ERR_WEBHOOK_SIGNATURE', message);
  refused(gh({ 'x-hub-signature-256': '  ', 'webhook-signature': '' }), 'KW_ERR_WEBHOOK_SIGNATURE', message);
  refused(gh({ 'x-hub-signature-256': [], 'webhook-signature': undefined }), 'KW_ERR_WEBHOOK_SIGNATURE', message);
  refused(gh({ 'x-hub-signature': 'sha1=0123' }), 'KW_ERR_WEBHOOK_SIGNATURE', message);
});

test('when both schemes are present, Standard Webhooks decides (it binds a timestamp)', () => {
  const headers = { ...swHeaders(standardSign(SW_KEY, SW_ID, SW_TS, GH_BODY)), 'x-hub-signature-256': githubSign(SW_SECRET, GH_BODY) };
  assert.deepEqual(gh(headers, GH_BODY, SW_SECRET), { ok: true, scheme: 'standard', deliveryId: SW_ID, timestampMs: SW_TS * 1000 });
  const stale = verifyWebhook({ headers, rawBody: GH_BODY, secret: SW_SECRET, nowMs: SW_NOW + 3_600_000 });
  refused(stale, 'KW_ERR_WEBHOOK_STALE', /in the past/);
});

test('malformed headers and secrets get a precise refusal and never throw', () => {
  const hex = 'ab'.repeat(32);
  const cases: Array<[WebhookHeaders, RegExp, string?]> = [
    [{ 'x-hub-signature-256': `sha1=${hex}` }, /must start with "sha256="/],
    [{ 'x-hub-signature-256': hex }, /must start with "sha256="/],
    [{ 'x-hub-signature-256': `sha256=${hex.slice(1)}` }, /63 characters after "sha256=", expected 64 hex digits/],
    [{ 'x-hub-signature-256': `sha256=${'zz'.repeat(32)}` }, /not a hex digit/],
    [{ 'x-hub-signature-256': 'sha256=' }, /0 characters after "sha256="/],
    [swHeaders('v1,'), /webhook-signature holds no "v1,<base64>" entry/],
    [swHeaders('v1'), /holds no "v1,<base64>" entry/],
    [swHeaders('v2,abcd v1a,efgh'), /holds no "v1,<base64>" entry/],
    [swHeaders('v1,not*base64'), /a v1 entry that is not base64/],
    [swHeaders(`v1,${crypto.randomBytes(16).toString('base64')}`), /a v1 entry of 16 bytes, expected 32/],
    [swHeaders('v1,,,,'), /holds no "v1,<base64>" entry|not base64/],
    [{ 'webhook-signature': SW_SIGNATURE, 'webhook-timestamp': String(SW_TS) }, /webhook-id is missing/],
    [{ 'webhook-signature': SW_SIGNATURE, 'webhook-id': SW_ID }, /webhook-timestamp is missing/],
    [{ ...swHeaders(SW_SIGNATURE), 'webhook-timestamp': 'hello' }, /whole seconds since 1970/],
    [{ ...swHeaders(SW_SIGNATURE), 'webhook-timestamp': '-5' }, /whole seconds since 1970/],
    [{ ...swHeaders(SW_SIGNATURE), 'webhook-timestamp': '1614265330.5' }, /whole seconds since 1970/],
    [{ ...swHeaders(SW_SIGNATURE), 'webhook-timestamp': '9'.repeat(400) }, /whole seconds since 1970/],
    [swHeaders(`v1,${'A'.repeat(100_000)}`), /a v1 entry of 75000 bytes/],
    [swHeaders(SW_SIGNATURE), /whsec_ but the rest is not base64/, 'whsec_!!!'],
    [swHeaders(SW_SIGNATURE), /whsec_ but the rest is not base64/, 'whsec_'],
    [swHeaders(SW_SIGNATURE), /secret is empty/, ''],
    [{ 'x-hub-signature-256': GH_SIGNATURE }, /secret is empty/, ''],
    // What a careless caller might pass at run time despite the types.
    [{ 'x-hub-signature-256': 42, 'webhook-signature': null } as unknown as WebhookHeaders, /^no signature/],
    [{ 'webhook-signature': { v1: 'x' }, 'x-hub-signature-256': [null, 7, GH_SIGNATURE.slice(0, 10)] } as unknown as WebhookHeaders, /must start with "sha256="|characters after/],
    [JSON.parse('{"__proto__": {"x-hub-signature-256": "sha256=00"}}') as WebhookHeaders, /^no signature/],
  ];
  for (const [headers, message, secret] of cases) {
    let v: WebhookVerdict | undefined;
    assert.doesNotThrow(() => { v = verifyWebhook({ headers, rawBody: SW_BODY, secret: secret ?? SW_SECRET, nowMs: SW_NOW }); }, JSON.stringify(headers).slice(0, 200));
    refused(v!, 'KW_ERR_WEBHOOK_SIGNATURE', message);
  }
  assert.doesNotThrow(() => verifyWebhook({ headers: null as unknown as WebhookHeaders, rawBody: SW_BODY, secret: SW_SECRET, nowMs: SW_NOW }));
});

test('an empty body can be signed and verified', () => {
  const empty = Buffer.alloc(0);
  assert.equal(githubSign(GH_SECRET, empty), `sha256=${crypto.createHmac('sha256', GH_SECRET).digest('hex')}`);
  assert.equal(gh({ 'x-hub-signature-256': githubSign(GH_SECRET, empty) }, empty).ok, true);
  assert.equal(sw(swHeaders(standardSign(SW_KEY, SW_ID, SW_TS, empty)), { rawBody: empty }).ok, true);
  refused(gh({ 'x-hub-signature-256': GH_SIGNATURE }, empty), 'KW_ERR_WEBHOOK_SIGNATURE', /does not match/);
  refused(sw(swHeaders(SW_SIGNATURE), { rawBody: empty }), 'KW_ERR_WEBHOOK_SIGNATURE', /does not match/);
});

test('deliveryIdOf takes the first delivery header present, trimmed and bounded', () => {
  assert.equal(deliveryIdOf({}), undefined);
  assert.equal(deliveryIdOf({ 'idempotency-key': ' k1 ' }), 'k1');
  assert.equal(deliveryIdOf({ 'idempotency-key': 'k1', 'x-request-id': 'r1' }), 'r1');
  assert.equal(deliveryIdOf({ 'idempotency-key': 'k1', 'x-request-id': 'r1', 'webhook-id': 'w1' }), 'w1');
  assert.equal(deliveryIdOf({ 'idempotency-key': 'k1', 'webhook-id': 'w1', 'x-github-delivery': 'g1' }), 'g1');
  assert.equal(deliveryIdOf({ 'X-Request-Id': 'r1' }), 'r1');
  assert.equal(deliveryIdOf({ 'x-github-delivery': '   ', 'webhook-id': 'w1' }), 'w1', 'a blank header counts as absent');
  assert.equal(deliveryIdOf({ 'x-request-id': ['r1', 'r1'] }), 'r1');
  assert.equal(deliveryIdOf({ 'x-request-id': ['r1', 'r2'], 'idempotency-key': 'k1' }), undefined, 'ambiguous');
  assert.equal(deliveryIdOf({ 'x-request-id': 'x'.repeat(200) }), 'x'.repeat(200));
  assert.equal(deliveryIdOf({ 'x-request-id': 'x'.repeat(201) }), undefined);
  assert.equal(deliveryIdOf({ 'x-request-id': 'a\u0000b' }), undefined);
  assert.equal(deliveryIdOf({ 'x-request-id': 5 } as unknown as WebhookHeaders), undefined);
  assert.equal(deliveryIdOf(null as unknown as WebhookHeaders), undefined);
});
