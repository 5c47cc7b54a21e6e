/**
 * Slack's request signature ("Verifying requests from Slack"): `X-Slack-Signature: v0=<hex>`
 * is HMAC-SHA256(signing secret, `v0:<X-Slack-Request-Timestamp>:<raw body>`), and the
 * timestamp must be within 300 s of now (the headers, their forms and the window are
 * http-inbound.ts's `verifySigned`). Checked before anything of the body is read (the URL
 * challenge included). Pure: the clock comes in as `nowMs`; the digests are compared in
 * constant time on equal-length buffers.
 */
import crypto from 'node:crypto';
import { digestsEqual } from '../../../agents/index.js';
import type { SignatureVerdict, SignedRequest } from '../http-inbound.js';
import { verifySigned } from '../http-inbound.js';

export interface VerifySlackInput extends SignedRequest {
  signingSecret: string;
}

export function verifySlack(input: VerifySlackInput): SignatureVerdict {
  return verifySigned({
    signatureHeader: 'X-Slack-Signature',
    timestampHeader: 'X-Slack-Request-Timestamp',
    signatureForm: /^v0=[0-9a-fA-F]{64}$/,
    signatureFormWords: '"v0=" and 64 hex digits',
    refusal(signature, timestamp, rawBody) {
      if (input.signingSecret === '') return 'the signing secret is empty, so no signature can be checked';
      const given = Buffer.from(signature.slice(3), 'hex');
      const expected = crypto.createHmac('sha256', input.signingSecret).update(`v0:${timestamp}:`, 'utf8').update(rawBody).digest();
      return digestsEqual(given, expected) ? undefined : 'X-Slack-Signature does not match the body and the signing secret';
    },
  }, input);
}
