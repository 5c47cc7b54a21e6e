/**
 * Checks the signature of a webhook delivery (`POST /hooks/<horde>/<trigger>`) against
 * its raw body. Two schemes, chosen by the headers present:
 * - **Standard Webhooks** (standardwebhooks.com): `webhook-id`, `webhook-timestamp`
 *   (seconds) and `webhook-signature`, a space-separated list of `v1,<base64>` (any one
 *   match is enough; other versions are skipped). The signed content is
 *   `<id>.<timestamp>.<raw body>`; a `whsec_<base64>` secret is the base64-decoded key,
 *   any other secret is used as its UTF-8 bytes. Checked first when present, since it
 *   also binds a timestamp (replay protection).
 * - **GitHub**: `X-Hub-Signature-256: sha256=<hex>` = HMAC-SHA256(secret as UTF-8, raw body).
 * And the webhook adapters' own scheme (`verifyAdapterWebhook`): `X-Kowalski-Signature:
 * v2=<hex>` over `<X-Kowalski-Timestamp>.<X-Kowalski-Delivery>.<raw body>`.
 *
 * Pure: the clock comes in as `nowMs`, nothing is read or written, and no header input
 * makes it throw. Digests are compared in constant time (`digestsEqual`, agents/net/secrets.ts);
 * a candidate's length is known from its format before any byte is compared.
 */
import crypto from 'node:crypto';
import { digestsEqual } from '../agents/index.js';
import { DELIVERY_HEADER, SIGNATURE_HEADER, SIGNATURE_VERSION, TIMESTAMP_HEADER, webhookDigest } from '../engine/index.js';

/** Default allowed distance between `webhook-timestamp` and now, in seconds (either way). */
export const WEBHOOK_TOLERANCE_SECS = 300;
/** At most this many entries of `webhook-signature` / `X-Hub-Signature-256` are considered. */
export const MAX_SIGNATURES = 16;
/** A delivery id longer than this (in characters, after trimming) is not used. */
export const DELIVERY_ID_MAX = 200;
/** Headers that name a delivery, first present wins. */
export const DELIVERY_ID_HEADERS = ['x-github-delivery', 'webhook-id', 'x-request-id', 'idempotency-key'] as const;

export type WebhookHeaders = Record<string, string | string[] | undefined>;
export type WebhookScheme = 'github' | 'standard' | 'kowalski';

export interface VerifyWebhookInput {
  /** Request headers (Node lower-cases the names; other casings are found too). */
  headers: WebhookHeaders;
  /** The body exactly as received: the signature covers these bytes. */
  rawBody: Buffer;
  /** The trigger's secret (from its `secret_env`, or config); `whsec_<base64>` or raw. */
  secret: string;
  /** Now, in milliseconds since 1970 (injected clock). */
  nowMs: number;
  /** Allowed clock distance for `webhook-timestamp`, in seconds; default 300. Not finite or negative → the default. */
  toleranceSecs?: number;
}

export type WebhookVerdict =
  | { ok: true; scheme: WebhookScheme; deliveryId?: string; timestampMs?: number }
  | { ok: false; code: 'KW_ERR_WEBHOOK_SIGNATURE' | 'KW_ERR_WEBHOOK_STALE'; message: string };

type Single = { kind: 'absent' } | { kind: 'one'; value: string } | { kind: 'conflict' };

const HMAC_BYTES = 32;
const GITHUB_HEADER = 'x-hub-signature-256';
const STANDARD_HEADER = 'webhook-signature';
const NO_SIGNATURE = 'no signature: expected X-Hub-Signature-256 or webhook-signature';

export function verifyWebhook(input: VerifyWebhookInput): WebhookVerdict {
  const headers = lowerCased(input.headers);
  if (nonEmpty(headers.get(STANDARD_HEADER)).length > 0) return verifyStandard(headers, input);
  if (nonEmpty(headers.get(GITHUB_HEADER)).length > 0) return verifyGithub(headers, input);
  return refuse(NO_SIGNATURE);
}

/** The delivery id a request names (signed or not): the first of DELIVERY_ID_HEADERS present, trimmed; undefined when absent, too long, holding control characters, or given twice with different values. */
export function deliveryIdOf(headers: WebhookHeaders): string | undefined {
  const map = lowerCased(headers);
  for (const name of DELIVERY_ID_HEADERS) {
    const s = single(map, name);
    if (s.kind === 'absent') continue;
    return s.kind === 'one' ? usableId(s.value) : undefined;
  }
  return undefined;
}

function verifyGithub(headers: Map<string, string[]>, input: VerifyWebhookInput): WebhookVerdict {
  // Node joins a repeated header with ", ": each part is a candidate.
  const entries = nonEmpty(headers.get(GITHUB_HEADER)).flatMap((v) => v.split(',')).map((e) => e.trim()).filter((e) => e !== '');
  if (entries.length > MAX_SIGNATURES) return refuse(`X-Hub-Signature-256 holds ${entries.length} signatures; at most ${MAX_SIGNATURES} are checked`);
  if (input.secret === '') return refuse('the webhook secret is empty, so no signature can be checked');
  const candidates = entries.map((e) => parseHexEntry(e, 'sha256=', 'X-Hub-Signature-256'));
  const expected = crypto.createHmac('sha256', Buffer.from(input.secret, 'utf8')).update(input.rawBody).digest();
  const verdict = matchAny(candidates, expected, 'X-Hub-Signature-256');
  if (verdict !== undefined) return verdict;
  const id = single(headers, 'x-github-delivery');
  const deliveryId = id.kind === 'one' ? usableId(id.value) : undefined;
  return { ok: true, scheme: 'github', ...(deliveryId !== undefined ? { deliveryId } : {}) };
}

function verifyStandard(headers: Map<string, string[]>, input: VerifyWebhookInput): WebhookVerdict {
  // A list separated by spaces; a repeated header arrives as an array or joined with ", ".
  const entries = nonEmpty(headers.get(STANDARD_HEADER)).join(' ').split(/\s+/).map((e) => e.replace(/,$/, '')).filter((e) => e !== '');
  if (entries.length > MAX_SIGNATURES) return refuse(`webhook-signature lists ${entries.length} signatures; at most ${MAX_SIGNATURES} are checked`);
  const id = single(headers, 'webhook-id');
  if (id.kind === 'absent') return refuse('webhook-signature is present but webhook-id is missing');
  if (id.kind === 'conflict') return refuse('webhook-id is given several times with different values');
  const ts = single(headers, 'webhook-timestamp');
  if (ts.kind === 'absent') return refuse('webhook-signature is present but webhook-timestamp is missing');
  if (ts.kind === 'conflict') return refuse('webhook-timestamp is given several times with different values');
  if (!/^\d{1,12}$/.test(ts.value)) return refuse('webhook-timestamp must be whole seconds since 1970 (digits only)');
  const key = standardKey(input.secret);
  if (typeof key === 'string') return refuse(key);

  const v1 = entries.filter((e) => e.startsWith('v1,'));
  if (v1.length === 0) return refuse('webhook-signature holds no "v1,<base64>" entry (other versions are not supported)');
  const candidates = v1.map((e) => parseBase64Digest(e.slice(3)));
  const expected = crypto.createHmac('sha256', key).update(`${id.value}.${ts.value}.`, 'utf8').update(input.rawBody).digest();
  const verdict = matchAny(candidates, expected, 'webhook-signature');
  if (verdict !== undefined) return verdict;

  // Only an authentic delivery learns that its time is off: a forgery gets a signature refusal above.
  const late = staleness('webhook-timestamp', ts.value, input);
  if (late !== undefined) return late;
  const deliveryId = usableId(id.value);
  return { ok: true, scheme: 'standard', timestampMs: Number(ts.value) * 1000, ...(deliveryId !== undefined ? { deliveryId } : {}) };
}

/** A refusal when the timestamp (whole seconds, checked by the caller) is farther from now than the tolerance. */
function staleness(header: string, value: string, input: Pick<VerifyWebhookInput, 'nowMs' | 'toleranceSecs'>): WebhookVerdict | undefined {
  const tolerance = input.toleranceSecs !== undefined && Number.isFinite(input.toleranceSecs) && input.toleranceSecs >= 0
    ? input.toleranceSecs : WEBHOOK_TOLERANCE_SECS;
  const ageSecs = Math.floor(input.nowMs / 1000) - Number(value);
  // Written so that a NaN clock fails closed.
  if (!(ageSecs <= tolerance)) return stale(`${header} is ${ageSecs} s in the past; at most ${tolerance} s is allowed (a replayed delivery or a wrong clock)`);
  if (!(-ageSecs <= tolerance)) return stale(`${header} is ${-ageSecs} s in the future; at most ${tolerance} s is allowed (a wrong clock)`);
  return undefined;
}

/**
 * A delivery to a webhook adapter (`POST /adapters/webhook/<name>`): `X-Kowalski-Signature:
 * v2=<hex>` over `<X-Kowalski-Timestamp>.<X-Kowalski-Delivery>.<raw body>`
 * (engine/adapters/webhook/signature.ts), the timestamp within the tolerance, and
 * `X-Kowalski-Delivery` (required, and signed: it is what makes a redelivery the same
 * message, so a captured request resent with another id does not match). The first scheme,
 * `sha256=` over the timestamp and the body only, is refused, naming v2. The time is checked
 * only once the signature holds.
 */
export function verifyAdapterWebhook(input: VerifyWebhookInput): WebhookVerdict {
  const headers = lowerCased(input.headers);
  const entries = nonEmpty(headers.get(SIGNATURE_HEADER)).flatMap((v) => v.split(',')).map((e) => e.trim()).filter((e) => e !== '');
  if (entries.length === 0) return refuse(`no signature: expected X-Kowalski-Signature: ${SIGNATURE_VERSION}=<hex>`);
  if (entries.length > MAX_SIGNATURES) return refuse(`X-Kowalski-Signature holds ${entries.length} signatures; at most ${MAX_SIGNATURES} are checked`);
  const ts = single(headers, TIMESTAMP_HEADER);
  if (ts.kind !== 'one') return refuse(ts.kind === 'absent' ? 'X-Kowalski-Timestamp is missing' : 'X-Kowalski-Timestamp is given several times with different values');
  if (!/^\d{1,12}$/.test(ts.value)) return refuse('X-Kowalski-Timestamp must be whole seconds since 1970 (digits only)');
  const id = single(headers, DELIVERY_HEADER);
  const deliveryId = id.kind === 'one' ? usableId(id.value) : undefined;
  if (deliveryId === undefined) return refuse(`X-Kowalski-Delivery must be given once: an id of at most ${DELIVERY_ID_MAX} characters naming this delivery`);
  if (input.secret === '') return refuse('the adapter secret is empty, so no signature can be checked');
  const versioned = entries.filter((e) => e.startsWith(`${SIGNATURE_VERSION}=`));
  if (versioned.length === 0) {
    return refuse(entries.some((e) => e.startsWith('sha256='))
      ? `X-Kowalski-Signature: sha256= (the first scheme) does not cover X-Kowalski-Delivery and is no longer accepted: sign ${SIGNATURE_VERSION}=<hex HMAC-SHA256 of timestamp + "." + delivery id + "." + body>`
      : `X-Kowalski-Signature holds no "${SIGNATURE_VERSION}=<hex>" entry`);
  }
  const expected = webhookDigest(input.secret, ts.value, deliveryId, input.rawBody);
  const candidates = versioned.map((e) => parseHexEntry(e, `${SIGNATURE_VERSION}=`, 'X-Kowalski-Signature'));
  const verdict = matchAny(candidates, expected, 'X-Kowalski-Signature');
  if (verdict !== undefined) return verdict.ok ? verdict : { ...verdict, message: `${verdict.message} (it covers X-Kowalski-Timestamp, X-Kowalski-Delivery and the body: none may change after signing)` };
  return staleness('X-Kowalski-Timestamp', ts.value, input) ?? { ok: true, scheme: 'kowalski', deliveryId, timestampMs: Number(ts.value) * 1000 };
}

/** The HMAC key for Standard Webhooks, or why there is none. */
function standardKey(secret: string): Buffer | string {
  if (!secret.startsWith('whsec_')) return secret === '' ? 'the webhook secret is empty, so no signature can be checked' : Buffer.from(secret, 'utf8');
  const b64 = secret.slice('whsec_'.length);
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64) || b64.length % 4 === 1) return 'the webhook secret starts with whsec_ but the rest is not base64';
  return Buffer.from(b64, 'base64');
}

/** A 32-byte digest from `<prefix><64 hex>`, or why the entry is malformed. */
function parseHexEntry(entry: string, prefix: string, header: string): Buffer | string {
  if (!entry.startsWith(prefix)) return `${header} must start with "${prefix}"`;
  const hex = entry.slice(prefix.length);
  if (hex.length !== HMAC_BYTES * 2) return `${header} holds ${hex.length} characters after "${prefix}", expected ${HMAC_BYTES * 2} hex digits`;
  if (!/^[0-9a-fA-F]+$/.test(hex)) return `${header} holds a character that is not a hex digit`;
  return Buffer.from(hex, 'hex');
}

/** A 32-byte digest from standard base64 (padding optional), or why it is malformed. */
function parseBase64Digest(b64: string): Buffer | string {
  if (b64 === '') return 'webhook-signature has an empty v1 entry';
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return 'webhook-signature has a v1 entry that is not base64';
  const bytes = Buffer.from(b64, 'base64');
  if (bytes.length !== HMAC_BYTES) return `webhook-signature has a v1 entry of ${bytes.length} bytes, expected ${HMAC_BYTES} (HMAC-SHA256)`;
  return bytes;
}

/** undefined when a candidate matches; otherwise the refusal (malformed when none was well-formed). */
function matchAny(candidates: Array<Buffer | string>, expected: Buffer, header: string): WebhookVerdict | undefined {
  let matched = false;
  let wellFormed = 0;
  for (const c of candidates) {
    if (typeof c === 'string') continue;
    wellFormed += 1;
    // Every candidate is compared (no early exit); lengths are equal by construction.
    const equal = digestsEqual(c, expected);
    matched = equal || matched;
  }
  if (matched) return undefined;
  if (wellFormed === 0) return refuse(candidates.find((c): c is string => typeof c === 'string') ?? NO_SIGNATURE);
  return refuse(`${header} does not match the body and the secret`);
}

/** Own header entries under lower-case names, values as string lists (anything else dropped). */
function lowerCased(headers: WebhookHeaders): Map<string, string[]> {
  const map = new Map<string, string[]>();
  if (headers === null || typeof headers !== 'object') return map;
  for (const [name, value] of Object.entries(headers)) {
    const values = typeof value === 'string' ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
    const key = name.toLowerCase();
    map.set(key, [...(map.get(key) ?? []), ...values]);
  }
  return map;
}

function nonEmpty(values: string[] | undefined): string[] {
  return (values ?? []).map((v) => v.trim()).filter((v) => v !== '');
}

/** A header that should carry one value: repeats of the same value are fine, different ones are not. */
function single(headers: Map<string, string[]>, name: string): Single {
  const distinct = [...new Set(nonEmpty(headers.get(name)))];
  if (distinct.length === 0) return { kind: 'absent' };
  return distinct.length === 1 ? { kind: 'one', value: distinct[0]! } : { kind: 'conflict' };
}

function usableId(value: string): string | undefined {
  return value.length <= DELIVERY_ID_MAX && !/\p{Cc}/u.test(value) ? value : undefined;
}

function refuse(message: string): WebhookVerdict {
  return { ok: false, code: 'KW_ERR_WEBHOOK_SIGNATURE', message };
}

function stale(message: string): WebhookVerdict {
  return { ok: false, code: 'KW_ERR_WEBHOOK_STALE', message };
}
