/**
 * Signing the app in without typing the token: `POST /api/auth/codes` (with the token)
 * mints a one-time code, and `POST /api/auth/exchange {code}` (the one route under /api
 * that needs no token) trades it, once, for the token. `kowalski serve` and
 * `kowalski open` print the code as a link, `/?code=…`; the app takes it off the address.
 */
import type { FastifyInstance } from 'fastify';
import { KowalskiError } from '../../core/index.js';
import type { LoginCodes } from '../login-codes.js';

export const EXCHANGE_PATH = '/api/auth/exchange';

const exchangeBody = {
  type: 'object',
  required: ['code'],
  additionalProperties: false,
  properties: { code: { type: 'string', minLength: 1, maxLength: 200 } },
} as const;

export function authRoutes(app: FastifyInstance, codes: LoginCodes, token: string): void {
  app.post('/api/auth/codes', async () => codes.mint());
  app.post<{ Body: { code: string } }>(EXCHANGE_PATH, { schema: { body: exchangeBody } }, async (req) => {
    if (!codes.redeem(req.body.code)) {
      throw new KowalskiError('KW_ERR_LOGIN_CODE', 'this sign-in link was used already, has expired (links last 10 minutes) or was not made by this server: run `kowalski open` on the machine the server runs on for a new one');
    }
    return { token };
  });
}
