/** `/api/plugins`: the plugins found with their state, permissions in plain words and failures; grant, revoke (audited), rescan. */
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../../engine/index.js';

const nameParams = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1, maxLength: 214 } },
} as const;

/** Who acts: the CLI sends its user (`ann (cli)`); the app sends nothing (`operator (api)`). */
const byBody = {
  anyOf: [
    { type: 'null' },
    { type: 'object', additionalProperties: false, properties: { by: { type: 'string', minLength: 1, maxLength: 100 } } },
  ],
} as const;

export function pluginRoutes(app: FastifyInstance, engine: Engine): void {
  app.get('/api/plugins', () => ({ plugins: engine.plugins.list() }));
  app.get<{ Params: { name: string } }>('/api/plugins/:name', { schema: { params: nameParams } },
    (req) => ({ plugin: engine.plugins.get(req.params.name), audit: engine.plugins.audit(req.params.name) }));
  app.post('/api/plugins/rescan', async () => ({ plugins: await engine.plugins.rescan() }));
  app.post<{ Params: { name: string }; Body: { by?: string } | null }>('/api/plugins/:name/grant', { schema: { params: nameParams, body: byBody } },
    (req) => engine.plugins.grant(req.params.name, req.body?.by ?? 'operator (api)'));
  app.post<{ Params: { name: string }; Body: { by?: string } | null }>('/api/plugins/:name/revoke', { schema: { params: nameParams, body: byBody } },
    (req) => engine.plugins.revoke(req.params.name, req.body?.by ?? 'operator (api)'));
}
