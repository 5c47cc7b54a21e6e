/**
 * Slack's request signature ("Verifying requests from Slack"): `X-Slack-Signature: v0=<hex>`
 * is HMAC-SHA256(signing secret, `v0:<X-Slack-Request-Timestamp>:<raw body>`), and the
 * timestamp must be within 300 s of now. Checked before anything of the body is read (the
 * URL challenge included). Pure: the clock comes in as `nowMs`; the digests are compared
 * in constant time on equal-length buffers, and no header input makes it throw.
 */
import crypto from 'node:crypto';
import type { InboundHeaders, SignatureVerdict } from '../http-inbound.js';
import { badSignature, oneHeader, staleTimestamp } from '../http-inbound.js';

export interface VerifySlackInput {
  headers: InboundHeaders;
  rawBody: Buffer;
  signingSecret: string;
  /** Now, in milliseconds since 1970 (the engine's clock). */
  nowMs: number;
}

export function verifySlack(input: VerifySlackInput): SignatureVerdict {
  const signature = oneHeader(input.headers, 'x-slack-signature');
  const timestamp = oneHeader(input.headers, 'x-slack-request-timestamp');
  if (signature === undefined) return badSignature('X-Slack-Signature is missing (or given twice)');
  if (timestamp === undefined) return badSignature('X-Slack-Request-Timestamp is missing (or given twice)');
  if (!/^\d{1,12}$/.test(timestamp)) return badSignature('X-Slack-Request-Timestamp must be whole seconds since 1970 (digits only)');
  if (!/^v0=[0-9a-fA-F]{64}$/.test(signature)) return badSignature('X-Slack-Signature must be "v0=" and 64 hex digits');
  if (input.signingSecret === '') return badSignature('the signing secret is empty, so no signature can be checked');
  const given = Buffer.from(signature.slice(3), 'hex');
  const expected = crypto.createHmac('sha256', input.signingSecret).update(`v0:${timestamp}:`, 'utf8').update(input.rawBody).digest();
  if (!crypto.timingSafeEqual(given, expected)) return badSignature('X-Slack-Signature does not match the body and the signing secret');
  const stale = staleTimestamp('X-Slack-Request-Timestamp', timestamp, input.nowMs);
  if (stale !== undefined) return { ok: false, code: 'KW_ERR_WEBHOOK_STALE', message: stale };
  return { ok: true };
}
