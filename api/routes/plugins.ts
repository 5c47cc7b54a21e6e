/** `/api/plugins`: the plugins found with their state, permissions in plain words and failures, and how they are confined; grant, revoke (audited), rescan. */
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../../engine/index.js';

const nameParams = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: { name: { type: 'string', minLength: 1, maxLength: 214 } },
} as const;

/** Who acts: the CLI sends its user (`ann (cli)`); the app sends nothing (`operator (api)`). */
const by = { type: 'string', minLength: 1, maxLength: 100 } as const;
const byBody = {
  anyOf: [{ type: 'null' }, { type: 'object', additionalProperties: false, properties: { by } }],
} as const;
/** A grant may also name what the operator was shown (the app does): refused when the plugin no longer is that. */
const grantBody = {
  anyOf: [
    { type: 'null' },
    {
      type: 'object',
      additionalProperties: false,
      properties: { by, version: { type: 'string', minLength: 1, maxLength: 256 }, permissionsHash: { type: 'string', pattern: '^[0-9a-f]{64}$' } },
    },
  ],
} as const;

interface GrantBody { by?: string; version?: string; permissionsHash?: string }

export function pluginRoutes(app: FastifyInstance, engine: Engine): void {
  app.get('/api/plugins', async () => ({ plugins: engine.plugins.list(), confinement: await engine.plugins.confinement() }));
  app.get<{ Params: { name: string } }>('/api/plugins/:name', { schema: { params: nameParams } },
    (req) => ({ plugin: engine.plugins.get(req.params.name), audit: engine.plugins.audit(req.params.name) }));
  // Every websocket client hears how far it got (`work` frames of op `plugins-rescan`).
  app.post('/api/plugins/rescan', async () => ({ plugins: await engine.work('plugins-rescan', (onProgress) => engine.plugins.rescan(onProgress)) }));
  app.post<{ Params: { name: string }; Body: GrantBody | null }>('/api/plugins/:name/grant', { schema: { params: nameParams, body: grantBody } }, (req) => {
    const { by: who = 'operator (api)', ...shown } = req.body ?? {};
    return engine.plugins.grant(req.params.name, who, shown);
  });
  app.post<{ Params: { name: string }; Body: { by?: string } | null }>('/api/plugins/:name/revoke', { schema: { params: nameParams, body: byBody } },
    (req) => engine.plugins.revoke(req.params.name, req.body?.by ?? 'operator (api)'));
}
