/** `/api/triggers`: every trigger with its switch, next firing and last firing; switching one on or off (persisted). */
import type { FastifyInstance } from 'fastify';
import type { Engine } from '../../engine/index.js';

const nameParams = {
  type: 'object',
  required: ['horde', 'name'],
  additionalProperties: false,
  properties: {
    horde: { type: 'string', minLength: 1, maxLength: 200 },
    name: { type: 'string', minLength: 1, maxLength: 200 },
  },
} as const;

export function triggerRoutes(app: FastifyInstance, engine: Engine): void {
  app.get('/api/triggers', async () => ({ triggers: await engine.triggers.list() }));
  for (const [action, enabled] of [['enable', true], ['disable', false]] as const) {
    app.post<{ Params: { horde: string; name: string } }>(`/api/triggers/:horde/:name/${action}`, { schema: { params: nameParams } },
      async (req) => engine.triggers.setEnabled(req.params.horde, req.params.name, enabled));
  }
}
