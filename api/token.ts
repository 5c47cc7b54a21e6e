/** The bearer token for a non-loopback bind: made once, kept owner-only in the data directory. */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../engine/index.js';

export const TOKEN_FILE = 'api-token';

/** The token, and whether it was made just now (so the caller prints it once). */
export function loadOrCreateToken(dataDir: string): { token: string; created: boolean } {
  const file = path.join(dataDir, TOKEN_FILE);
  try {
    const token = fs.readFileSync(file, 'utf8').trim();
    if (token.length >= 32) return { token, created: false };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const token = crypto.randomBytes(32).toString('base64url');
  writeFileAtomic(file, `${token}\n`, { mode: 0o600, fsync: true });
  return { token, created: true };
}

/** The token if one was ever made (the CLI reads it to talk to a server bound beyond loopback). */
export function readToken(dataDir: string): string | undefined {
  try {
    return fs.readFileSync(path.join(dataDir, TOKEN_FILE), 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
