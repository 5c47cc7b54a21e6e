/**
 * `/api/runs/:id/review`: a review step's artifact as the operator sees it (with the hash an
 * approval binds to), and edit-and-approve. A plain approval is `POST /api/runs/:id/approve`
 * with that `hash`; a denial is `POST /api/runs/:id/deny`.
 */
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../../engine/index.js';
import { runIdParams, stepField } from '../schemas.js';

type RunParams = { Params: { id: string } };
const hashField = { type: 'string', minLength: 1, maxLength: 128 } as const;

export function reviewRoutes(app: FastifyInstance, engine: Engine): void {
  app.get<RunParams & { Querystring: { step?: string } }>('/api/runs/:id/review', {
    schema: { params: runIdParams, querystring: { type: 'object', additionalProperties: false, properties: { step: stepField } } },
  }, async (req) => {
    const { file: _absolute, ...view } = engine.review(req.params.id, req.query.step === undefined ? {} : { step: req.query.step });
    return view;
  });

  app.post<RunParams & { Body: { step?: string; hash: string; content: string } }>('/api/runs/:id/review', {
    schema: {
      params: runIdParams,
      body: {
        type: 'object', required: ['hash', 'content'], additionalProperties: false,
        properties: { step: stepField, hash: hashField, content: { type: 'string', maxLength: 512 * 1024 } },
      },
    },
  }, async (req) => engine.reviewEdit(req.params.id, {
    hash: req.body.hash, content: req.body.content, by: 'operator (api)', ...(req.body.step === undefined ? {} : { step: req.body.step }),
  }));
}
