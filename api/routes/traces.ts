/** `/api/traces`: every model call, newest first (of one run, one chat session, or all), one call in full, and the calls it delegated. */
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../../engine/index.js';
import { intInRange, queryInt, runIdParams } from '../schemas.js';

export function traceRoutes(app: FastifyInstance, engine: Engine): void {
  app.get<{ Querystring: { run?: string; session?: string; limit?: string; before?: string } }>('/api/traces', {
    schema: {
      querystring: {
        type: 'object',
        additionalProperties: false,
        properties: { run: runIdParams.properties.id, session: { type: 'string', pattern: '^c[0-9a-z]{1,40}$' }, limit: queryInt, before: queryInt },
      },
    },
  }, async (req) => {
    const limit = intInRange('limit', req.query.limit, 1, 500, 100);
    if (req.query.run !== undefined) engine.getRunRow(req.query.run); // 404 for an unknown run
    if (req.query.session !== undefined) engine.chat.summary(req.query.session); // 404 for an unknown session
    const traces = engine.listTraces({
      limit: limit + 1,
      ...(req.query.run === undefined ? {} : { runId: req.query.run }),
      ...(req.query.session === undefined ? {} : { sessionId: req.query.session }),
      ...(req.query.before === undefined ? {} : { before: intInRange('before', req.query.before, 1, Number.MAX_SAFE_INTEGER, 1) }),
    });
    const page = traces.slice(0, limit);
    return { traces: page, nextBefore: traces.length > limit ? page[page.length - 1]!.id : null };
  });

  app.get<{ Params: { id: string } }>('/api/traces/:id', {
    schema: { params: { type: 'object', required: ['id'], properties: { id: queryInt } } },
  }, async (req) => engine.getTrace(Number(req.params.id)));

  /** The model calls an agent made for a delegation asked for by this call (a chat turn's tree, one level at a time). */
  app.get<{ Params: { id: string } }>('/api/traces/:id/children', {
    schema: { params: { type: 'object', required: ['id'], properties: { id: queryInt } } },
  }, async (req) => {
    const id = Number(req.params.id);
    engine.getTrace(id); // 404 for an unknown trace
    return { traces: engine.listTraces({ parentId: id, limit: 500 }).reverse() };
  });
}
