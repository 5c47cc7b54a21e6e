/**
 * `POST /api/memory/consolidate`: the chat turns finished since an instant turned into
 * durable facts, kept as notes under the vault's `memory/` (docs/memory.md) — what
 * `kowalski memory consolidate` asks a running server for.
 */
import type { FastifyInstance } from 'fastify';
import type { ConsolidateResult, Engine } from '../../engine/index.js';

interface ConsolidateBody {
  /** Turns finished at or after this instant, ms since epoch. */
  since: number;
  agent?: string;
}

export function memoryRoutes(app: FastifyInstance, engine: Engine): void {
  app.post<{ Body: ConsolidateBody }>('/api/memory/consolidate', {
    schema: {
      body: {
        type: 'object',
        required: ['since'],
        additionalProperties: false,
        properties: {
          since: { type: 'integer', minimum: 0 },
          agent: { type: 'string', minLength: 1, maxLength: 64 },
        },
      },
    },
  }, async (req): Promise<ConsolidateResult> => engine.chat.consolidate({ since: req.body.since, ...(req.body.agent === undefined ? {} : { agent: req.body.agent }) }));
}
