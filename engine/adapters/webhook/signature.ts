/**
 * The webhook adapter's signature, one definition for both ways (a delivery checked by
 * api/routes/adapter-webhook.ts, an answer posted to `callback_url`): `X-Kowalski-Signature:
 * sha256=<hex>`, the HMAC-SHA256 with the adapter's secret (its UTF-8 bytes) of the
 * `X-Kowalski-Timestamp` value (unix seconds, as sent), a `.`, then the raw body bytes.
 */
import crypto from 'node:crypto';

export const SIGNATURE_HEADER = 'x-kowalski-signature';
export const TIMESTAMP_HEADER = 'x-kowalski-timestamp';
export const DELIVERY_HEADER = 'x-kowalski-delivery';
/** Allowed distance between `X-Kowalski-Timestamp` and now, in seconds (either way). */
export const TOLERANCE_SECS = 300;

/** The 32-byte HMAC of `<timestamp>.<raw body>`. */
export function webhookDigest(secret: string, timestamp: string, rawBody: Buffer): Buffer {
  return crypto.createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.`, 'utf8').update(rawBody).digest();
}

/** The three headers of a signed request with this body, at `nowMs`. */
export function signedHeaders(secret: string, deliveryId: string, rawBody: Buffer, nowMs: number): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  return {
    [SIGNATURE_HEADER]: `sha256=${webhookDigest(secret, timestamp, rawBody).toString('hex')}`,
    [TIMESTAMP_HEADER]: timestamp,
    [DELIVERY_HEADER]: deliveryId,
  };
}
