/** Comparing a secret someone sent with the one expected, in constant time. */
import crypto from 'node:crypto';

/** Compared over sha256 digests, so neither where they differ nor either length leaks. */
export function secretsEqual(given: string, expected: string): boolean {
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return crypto.timingSafeEqual(a, b);
}
