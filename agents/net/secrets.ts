/** Comparing a secret someone sent with the one expected, in constant time. */
import crypto from 'node:crypto';

/** Two digests, compared in constant time (`crypto.timingSafeEqual`); of different lengths they are unequal, never a throw. */
export function digestsEqual(given: Uint8Array, expected: Uint8Array): boolean {
  return given.length === expected.length && crypto.timingSafeEqual(given, expected);
}

/** Compared over sha256 digests, so neither where they differ nor either length leaks. */
export function secretsEqual(given: string, expected: string): boolean {
  const a = crypto.createHash('sha256').update(given).digest();
  const b = crypto.createHash('sha256').update(expected).digest();
  return digestsEqual(a, b);
}
