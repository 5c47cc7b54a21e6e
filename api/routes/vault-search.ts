/**
 * `/api/vault/search`, `/api/vault/reindex`, `/api/vault/status`: the vault's keyword and
 * semantic search (docs/vault-search.md). A search always answers 200 with a
 * SearchAnswer: when the semantic side cannot answer (off, its server down, its vectors
 * of another model) the keyword results come back with a `note` saying why.
 */
import type { FastifyInstance } from 'fastify';
import { KowalskiError } from '../../core/index.js';
import type { Engine, SearchAnswer, VaultSearchStatus } from '../../engine/index.js';
import { DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT } from '../../engine/index.js';
import { errorBody } from '../http-errors.js';
import { intInRange, queryInt } from '../schemas.js';

/** Characters of a query the route takes. */
export const MAX_QUERY_CHARS = 1000;

interface SearchQuery {
  q: string;
  semantic?: 'true' | 'false';
  limit?: string;
  under?: string;
}

export function vaultSearchRoutes(app: FastifyInstance, engine: Engine): void {
  app.get<{ Querystring: SearchQuery }>('/api/vault/search', {
    schema: {
      querystring: {
        type: 'object',
        required: ['q'],
        additionalProperties: false,
        properties: {
          q: { type: 'string', minLength: 1, maxLength: MAX_QUERY_CHARS },
          semantic: { type: 'string', enum: ['true', 'false'] },
          limit: queryInt,
          under: { type: 'string', minLength: 1, maxLength: 1000 },
        },
      },
    },
  }, async (req): Promise<SearchAnswer> => {
    const { q, semantic, under } = req.query;
    const limit = intInRange('limit', req.query.limit, 1, MAX_SEARCH_LIMIT, DEFAULT_SEARCH_LIMIT);
    return engine.vaultSearch.search(q, { limit, semantic: semantic === 'true', ...(under === undefined ? {} : { under }) });
  });

  // Every note read again and, with semantic search on, embedded again: answers when done. The
  // embedding model's failure is the answer's error, as 502 (the server behind this one failed).
  // Every websocket client hears how far it got (`work` frames of op `vault-reindex`).
  app.post('/api/vault/reindex', { schema: { body: { type: 'object', additionalProperties: false, properties: {} } } }, async (_req, reply) => {
    try {
      return await engine.work('vault-reindex', (onProgress) => engine.vaultSearch.reindex(onProgress));
    } catch (err) {
      if (!(err instanceof KowalskiError) || !err.code.startsWith('KW_ERR_MODEL_')) throw err;
      return reply.code(502).send(errorBody(err.code, err.message));
    }
  });

  app.get('/api/vault/status', async (): Promise<VaultSearchStatus> => engine.vaultSearch.status());
}
