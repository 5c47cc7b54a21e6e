/** JSON schemas shared by routes (Fastify validates with them and answers 400 naming the field). */
export const runIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^r[0-9a-z]{1,40}$' } },
} as const;

export const hordeIdParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$' } },
} as const;

export const RUN_STATE_NAMES = ['queued', 'running', 'awaiting_input', 'succeeded', 'failed', 'cancelled'] as const;
