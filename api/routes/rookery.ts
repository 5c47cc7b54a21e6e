/**
 * The Rookery over HTTP: `/api/rookery/drafts` — hordes being built (a new draft, with or without
 * a chat session of the builder agent; the list; one draft with its problems and stage; a direct
 * edit of the whole draft) and `POST /api/rookery/drafts/:id/birth`, which writes the horde folder
 * (409 KW_ERR_HORDE_EXISTS when another horde has its id); `/api/rookery/kinds`, the step kinds
 * an editor offers. A draft the builder changes in a chat
 * turn is read again by the app when that session's tool calls or answer arrive on the websocket.
 */
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../../engine/index.js';
import { MAX_DRAFTS_LISTED, stepKindList } from '../../engine/index.js';
import { intInRange, queryInt } from '../schemas.js';

const draftParams = {
  type: 'object',
  required: ['id'],
  additionalProperties: false,
  properties: { id: { type: 'string', pattern: '^d[0-9a-z]{1,40}$' } },
} as const;

type DraftParams = { Params: { id: string } };

export function rookeryRoutes(app: FastifyInstance, engine: Engine): void {
  app.post<{ Body: { with_chat?: boolean } | undefined }>('/api/rookery/drafts', {
    schema: { body: { type: ['object', 'null'], additionalProperties: false, properties: { with_chat: { type: 'boolean' } } } },
  }, async (req, reply) => reply.code(201).send(await engine.rookery.create({ withChat: req.body?.with_chat === true, by: 'operator (api)' })));

  app.get<{ Querystring: { limit?: string } }>('/api/rookery/drafts', {
    schema: { querystring: { type: 'object', additionalProperties: false, properties: { limit: queryInt } } },
  }, async (req) => ({ drafts: engine.rookery.list(intInRange('limit', req.query.limit, 1, MAX_DRAFTS_LISTED, 100)) }));

  app.get('/api/rookery/kinds', async () => ({ kinds: stepKindList() }));

  app.get<DraftParams>('/api/rookery/drafts/:id', { schema: { params: draftParams } }, async (req) => engine.rookery.get(req.params.id));

  app.put<DraftParams & { Body: { draft: Record<string, unknown> } }>('/api/rookery/drafts/:id', {
    schema: { params: draftParams, body: { type: 'object', required: ['draft'], additionalProperties: false, properties: { draft: { type: 'object' } } } },
  }, async (req) => engine.rookery.replace(req.params.id, req.body.draft));

  app.post<DraftParams & { Body: { overwrite?: boolean } | undefined }>('/api/rookery/drafts/:id/birth', {
    schema: { params: draftParams, body: { type: ['object', 'null'], additionalProperties: false, properties: { overwrite: { type: 'boolean' } } } },
  }, async (req) => engine.rookery.birth(req.params.id, { overwrite: req.body?.overwrite === true }));
}
