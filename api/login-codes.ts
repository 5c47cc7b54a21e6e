/**
 * One-time sign-in codes: the way into the app without typing the token (Jupyter's way,
 * but single-use). `kowalski serve` opens the browser on `/?code=…`, and `kowalski open`
 * asks the running server for another (with the token, which it reads from the data
 * folder); the app trades the code once for the token and keeps it. A code is 128 random
 * bits, lives for a few minutes, is kept only as its hash and works once; at most a few
 * wait at a time (minting another forgets the oldest).
 */
import crypto from 'node:crypto';

/** How long a code may wait to be used (a link printed for a person to click). */
export const LOGIN_CODE_TTL_MS = 10 * 60_000;
const MAX_WAITING = 16;

export interface LoginCode {
  code: string;
  expiresAt: number;
}

export interface LoginCodes {
  mint(): LoginCode;
  /** True once for a code minted here and not yet expired; false for anything else. */
  redeem(code: string): boolean;
}

const digest = (code: string): string => crypto.createHash('sha256').update(code).digest('base64url');

export function createLoginCodes(now: () => number = Date.now, ttlMs = LOGIN_CODE_TTL_MS): LoginCodes {
  // Insertion order is minting order: the first key is the oldest.
  const waiting = new Map<string, number>();
  return {
    mint() {
      const at = now();
      for (const [key, expiresAt] of waiting) if (expiresAt <= at) waiting.delete(key);
      while (waiting.size >= MAX_WAITING) waiting.delete(waiting.keys().next().value!);
      const code = crypto.randomBytes(16).toString('base64url');
      const expiresAt = at + ttlMs;
      waiting.set(digest(code), expiresAt);
      return { code, expiresAt };
    },
    redeem(code) {
      const key = digest(code);
      const expiresAt = waiting.get(key);
      if (expiresAt === undefined) return false;
      waiting.delete(key);
      return expiresAt > now();
    },
  };
}
