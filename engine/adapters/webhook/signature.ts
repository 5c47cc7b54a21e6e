/**
 * The webhook adapter's signature, one definition for both ways (a delivery checked by
 * api/routes/adapter-webhook.ts, an answer posted to `callback_url`): `X-Kowalski-Signature:
 * v2=<hex>`, the HMAC-SHA256 with the adapter's secret (its UTF-8 bytes) of the
 * `X-Kowalski-Timestamp` value (unix seconds, as sent), a `.`, the `X-Kowalski-Delivery`
 * value, a `.`, then the raw body bytes. Everything that decides is signed: the delivery id
 * is what makes a redelivery the same message, so a captured request resent with a new id
 * no longer matches. (The first scheme, `sha256=` over the timestamp and the body only, is
 * refused.)
 */
import crypto from 'node:crypto';

export const SIGNATURE_HEADER = 'x-kowalski-signature';
export const TIMESTAMP_HEADER = 'x-kowalski-timestamp';
export const DELIVERY_HEADER = 'x-kowalski-delivery';
/** Allowed distance between `X-Kowalski-Timestamp` and now, in seconds (either way). */
export const TOLERANCE_SECS = 300;

/** The signature's version prefix in `X-Kowalski-Signature`. */
export const SIGNATURE_VERSION = 'v2';

/** The 32-byte HMAC of `<timestamp>.<delivery id>.<raw body>`. */
export function webhookDigest(secret: string, timestamp: string, deliveryId: string, rawBody: Buffer): Buffer {
  return crypto.createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.${deliveryId}.`, 'utf8').update(rawBody).digest();
}

/** The three headers of a signed request with this body, at `nowMs`. */
export function signedHeaders(secret: string, deliveryId: string, rawBody: Buffer, nowMs: number): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  return {
    [SIGNATURE_HEADER]: `${SIGNATURE_VERSION}=${webhookDigest(secret, timestamp, deliveryId, rawBody).toString('hex')}`,
    [TIMESTAMP_HEADER]: timestamp,
    [DELIVERY_HEADER]: deliveryId,
  };
}
