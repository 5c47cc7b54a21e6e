/** `/api/adapters`: every configured adapter's status (secrets masked); switching one on or off at run time (persisted, audited). */
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../../engine/index.js';
import { NAME_PARAMS } from '../name-params.js';

export function adapterRoutes(app: FastifyInstance, engine: Engine): void {
  app.get('/api/adapters', async () => ({ adapters: engine.adapters.list() }));
  app.post<{ Params: { name: string } }>('/api/adapters/:name/enable', { schema: { params: NAME_PARAMS } }, async (req) => engine.adapters.enable(req.params.name, 'operator (api)'));
  app.post<{ Params: { name: string } }>('/api/adapters/:name/disable', { schema: { params: NAME_PARAMS } }, async (req) => engine.adapters.disable(req.params.name, 'operator (api)'));
}
