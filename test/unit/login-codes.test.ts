/** One-time sign-in codes: once each, for their time only, a bounded number waiting. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LOGIN_CODE_TTL_MS, createLoginCodes } from '../../api/login-codes.js';

test('a code signs in once, and not after its time', () => {
  let now = 1_000_000;
  const codes = createLoginCodes(() => now);
  const a = codes.mint();
  assert.match(a.code, /^[\w-]{22}$/, '128 random bits, URL-safe');
  assert.equal(a.expiresAt, now + LOGIN_CODE_TTL_MS);
  assert.equal(codes.redeem(a.code), true);
  assert.equal(codes.redeem(a.code), false, 'used');
  const b = codes.mint();
  now += LOGIN_CODE_TTL_MS;
  assert.equal(codes.redeem(b.code), false, 'expired at its expiresAt');
  assert.equal(codes.redeem('made-up'), false);
  assert.equal(codes.redeem(''), false);
});

test('at most 16 wait: another forgets the oldest; each is distinct', () => {
  const codes = createLoginCodes(() => 0);
  const minted = Array.from({ length: 17 }, () => codes.mint().code);
  assert.equal(new Set(minted).size, 17);
  assert.equal(codes.redeem(minted[0]!), false, 'the oldest was forgotten');
  for (const code of minted.slice(1)) assert.equal(codes.redeem(code), true);
});
