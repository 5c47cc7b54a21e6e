/**
 * The API token of every test server: the server asks for one on loopback too. A test's
 * data folder gets it before `kowalski serve` starts (serve keeps a token it finds), so the
 * CLI, the browser and the test's own requests all hold it.
 */
import fs from 'node:fs';
import path from 'node:path';

/** At least 32 characters, as the server asks. */
export const TEST_TOKEN = 'kw-test-token-0123456789abcdefghijklmnop';
/** The header every request to a test server carries. */
export const AUTH = { authorization: `Bearer ${TEST_TOKEN}` } as const;
/** The websocket subprotocols the app offers: ours, and the token. */
export const WS_PROTOCOLS = ['kowalski', `bearer.${TEST_TOKEN}`];

/** Puts TEST_TOKEN in `<home>/api-token` (owner-only) unless a token is there already. */
export function writeTestToken(home: string): void {
  const file = path.join(home, 'api-token');
  fs.mkdirSync(home, { recursive: true });
  try {
    fs.writeFileSync(file, `${TEST_TOKEN}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}
