/** `/api/adapters`: every configured adapter's status (secrets masked); switching one on or off at run time (persisted, audited). */
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../../engine/index.js';

const nameParams = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1, maxLength: 64 } },
} as const;

export function adapterRoutes(app: FastifyInstance, engine: Engine): void {
  app.get('/api/adapters', async () => ({ adapters: engine.adapters.list() }));
  app.post<{ Params: { name: string } }>('/api/adapters/:name/enable', { schema: { params: nameParams } }, async (req) => engine.adapters.enable(req.params.name, 'operator (api)'));
  app.post<{ Params: { name: string } }>('/api/adapters/:name/disable', { schema: { params: nameParams } }, async (req) => engine.adapters.disable(req.params.name, 'operator (api)'));
}
