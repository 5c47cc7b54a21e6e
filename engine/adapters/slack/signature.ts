/**
 * Slack's request signature ("Verifying requests from Slack"): `X-Slack-Signature: v0=<hex>`
 * is HMAC-SHA256(signing secret, `v0:<X-Slack-Request-Timestamp>:<raw body>`), and the
 * timestamp must be within 300 s of now. Checked before anything of the body is read (the
 * URL challenge included). Pure: the clock comes in as `nowMs`; the digests are compared
 * in constant time on equal-length buffers, and no header input makes it throw.
 */
import crypto from 'node:crypto';
import type { InboundHeaders } from '../http-inbound.js';
import { oneHeader } from '../http-inbound.js';

/** The allowed distance between `X-Slack-Request-Timestamp` and now, in seconds (either way). */
export const SLACK_TOLERANCE_SECS = 300;

export type SlackVerdict =
  | { ok: true }
  | { ok: false; code: 'KW_ERR_WEBHOOK_SIGNATURE' | 'KW_ERR_WEBHOOK_STALE'; message: string };

export interface VerifySlackInput {
  headers: InboundHeaders;
  rawBody: Buffer;
  signingSecret: string;
  /** Now, in milliseconds since 1970 (the engine's clock). */
  nowMs: number;
}

export function verifySlack(input: VerifySlackInput): SlackVerdict {
  const signature = oneHeader(input.headers, 'x-slack-signature');
  const timestamp = oneHeader(input.headers, 'x-slack-request-timestamp');
  if (signature === undefined) return refuse('X-Slack-Signature is missing (or given twice)');
  if (timestamp === undefined) return refuse('X-Slack-Request-Timestamp is missing (or given twice)');
  if (!/^\d{1,12}$/.test(timestamp)) return refuse('X-Slack-Request-Timestamp must be whole seconds since 1970 (digits only)');
  if (!/^v0=[0-9a-fA-F]{64}$/.test(signature)) return refuse('X-Slack-Signature must be "v0=" and 64 hex digits');
  if (input.signingSecret === '') return refuse('the signing secret is empty, so no signature can be checked');
  const given = Buffer.from(signature.slice(3), 'hex');
  const expected = crypto.createHmac('sha256', input.signingSecret).update(`v0:${timestamp}:`, 'utf8').update(input.rawBody).digest();
  if (!crypto.timingSafeEqual(given, expected)) return refuse('X-Slack-Signature does not match the body and the signing secret');
  // Only an authentic request learns that its time is off; written so that a NaN clock fails closed.
  const ageSecs = Math.floor(input.nowMs / 1000) - Number(timestamp);
  if (!(Math.abs(ageSecs) <= SLACK_TOLERANCE_SECS)) {
    return {
      ok: false, code: 'KW_ERR_WEBHOOK_STALE',
      message: `X-Slack-Request-Timestamp is ${Math.abs(ageSecs)} s in the ${ageSecs >= 0 ? 'past' : 'future'}; at most ${SLACK_TOLERANCE_SECS} s is allowed (a replayed request or a wrong clock)`,
    };
  }
  return { ok: true };
}

function refuse(message: string): SlackVerdict {
  return { ok: false, code: 'KW_ERR_WEBHOOK_SIGNATURE', message };
}
