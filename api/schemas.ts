import { KowalskiError } from '../core/index.js';
import { RUN_ID_PATTERN } from '../engine/index.js';

/** JSON schemas shared by routes (Fastify validates with them and answers 400 naming the field). */
export const runIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: RUN_ID_PATTERN } },
} as const;

export const hordeIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' } },
} as const;

/** A step name and an operator's reason, in bodies and websocket frames alike. */
export const stepField = { type: 'string', minLength: 1, maxLength: 200 } as const;
export const reasonField = { type: 'string', minLength: 1, maxLength: 2000 } as const;
/** A command hash as an approval shows it (sha256 hex today). */
export const hashField = { type: 'string', minLength: 1, maxLength: 200 } as const;

/** A whole number in a query string (which carries only text; bodies are never coerced). */
export const queryInt = { type: 'string', pattern: '^[0-9]{1,9}$' } as const;

/** `value` as a number within [min, max], or a 400 naming the query field. */
export function intInRange(field: string, value: string | undefined, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (n < min || n > max) throw new KowalskiError('KW_ERR_BAD_REQUEST', `querystring/${field} must be between ${min} and ${max}`, { where: { key: `querystring/${field}` } });
  return n;
}
