/**
 * `/api/chat`: sessions with the agent team. A message is answered once it is committed
 * (202 with its turn); the answer streams on the websocket (`chat-follow`) and is
 * readable from `GET /api/chat/sessions/:id` once the turn has ended.
 */
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../../engine/index.js';
import { AGENT_NAME, MAX_AGENT_NAME, MAX_MESSAGE_CHARS } from '../../engine/index.js';
import { intInRange, queryInt } from '../schemas.js';

const sessionParams = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', pattern: '^c[0-9a-z]{1,40}$' } },
} as const;

type SessionParams = { Params: { id: string } };

/** A turn's failure that happens after the 202 is in the log and on the websocket; nothing more to do with it here. */
const settled = (): undefined => undefined;

export function chatRoutes(app: FastifyInstance, engine: Engine): void {
  app.post<{ Body: { agent: string; title?: string } }>('/api/chat/sessions', {
    schema: {
      body: {
        type: 'object', required: ['agent'], additionalProperties: false,
        properties: { agent: { type: 'string', pattern: AGENT_NAME.source, maxLength: MAX_AGENT_NAME }, title: { type: 'string', maxLength: 200 } },
      },
    },
  }, async (req, reply) => reply.code(201).send(engine.chat.create({
    agent: req.body.agent, by: 'operator (api)', ...(req.body.title === undefined ? {} : { title: req.body.title }),
  })));

  app.get<{ Querystring: { limit?: string } }>('/api/chat/sessions', {
    schema: { querystring: { type: 'object', additionalProperties: false, properties: { limit: queryInt } } },
  }, async (req) => ({ sessions: engine.chat.list(intInRange('limit', req.query.limit, 1, 500, 100)) }));

  app.get<SessionParams>('/api/chat/sessions/:id', { schema: { params: sessionParams } }, async (req) => engine.chat.get(req.params.id));

  app.post<SessionParams & { Body: { text: string } }>('/api/chat/sessions/:id/messages', {
    schema: {
      params: sessionParams,
      body: { type: 'object', required: ['text'], additionalProperties: false, properties: { text: { type: 'string', minLength: 1, maxLength: MAX_MESSAGE_CHARS } } },
    },
  }, async (req, reply) => {
    const sent = engine.chat.send(req.params.id, req.body.text, { by: 'operator (api)' });
    sent.done.catch(settled);
    return reply.code(202).send({ sessionId: sent.sessionId, turn: sent.turn });
  });

  app.post<SessionParams & { Body: { extraIterations?: number } | undefined }>('/api/chat/sessions/:id/continue', {
    schema: {
      params: sessionParams,
      body: { type: ['object', 'null'], additionalProperties: false, properties: { extraIterations: { type: 'integer', minimum: 1, maximum: 1000 } } },
    },
  }, async (req, reply) => {
    const sent = engine.chat.grant(req.params.id, req.body?.extraIterations ?? engine.config.chat.maxIterations, { by: 'operator (api)' });
    sent.done.catch(settled);
    return reply.code(202).send({ sessionId: sent.sessionId, turn: sent.turn });
  });
}
