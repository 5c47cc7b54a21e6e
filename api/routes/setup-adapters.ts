/**
 * Setup's adapters (`[adapters.<name>]` in config.toml): `GET /api/setup/adapters` lists
 * them with the running server's status (a secret only as its environment variable's name),
 * `POST` adds one (a secret only as a variable's name: `<key>_env = "NAME"`), `PATCH
 * /api/setup/adapters/:name` changes keys of one (null removes a key), `DELETE` removes
 * it. An add, a change or a remove keeps config.toml's comments,
 * reloads the config and takes effect at the server's next start (`restartNeeded`).
 * Switching one on or off is `/api/adapters/:name/enable|disable` (api/routes/adapters.ts).
 */
import type { FastifyInstance } from 'fastify';
import type { AdapterAdd, AdapterChange } from '../../contract/setup.js';
import type { Engine } from '../../engine/index.js';
import { ADAPTER_TYPES, addAdapter, changeAdapter, readAdapters, removeAdapter } from '../../engine/index.js';
import { NAME_PARAMS } from '../name-params.js';

const SETTING = { anyOf: [{ type: 'string', maxLength: 2000 }, { type: 'integer' }, { type: 'boolean' }] } as const;

const addSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'type'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[a-z][a-z0-9_-]{0,63}$' },
    type: { type: 'string', enum: [...ADAPTER_TYPES] },
    agent: { type: 'string', minLength: 1, maxLength: 64 },
    enabled: { type: 'boolean' },
    settings: {
      type: 'object',
      maxProperties: 50,
      additionalProperties: SETTING,
    },
    secretEnv: { type: 'object', maxProperties: 20, additionalProperties: { type: 'string', minLength: 1, maxLength: 200 } },
  },
} as const;

const changeSchema = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: {
    agent: { anyOf: [{ type: 'string', minLength: 1, maxLength: 64 }, { type: 'null' }] },
    enabled: { type: ['boolean', 'null'] },
    settings: { type: 'object', maxProperties: 50, additionalProperties: { anyOf: [...SETTING.anyOf, { type: 'null' }] } },
    secretEnv: { type: 'object', maxProperties: 20, additionalProperties: { anyOf: [{ type: 'string', minLength: 1, maxLength: 200 }, { type: 'null' }] } },
  },
} as const;

export function setupAdapterRoutes(app: FastifyInstance, engine: Engine): void {
  const file = (): string => engine.paths.config;
  app.get('/api/setup/adapters', async () => ({ adapters: readAdapters(file(), engine.adapters.list(), process.env) }));

  app.post<{ Body: AdapterAdd }>('/api/setup/adapters', { schema: { body: addSchema } }, async (req) => {
    const saved = addAdapter(file(), req.body, process.env, engine.adapters.list());
    engine.reloadConfig();
    return saved;
  });

  app.patch<{ Params: { name: string }; Body: AdapterChange }>('/api/setup/adapters/:name', { schema: { params: NAME_PARAMS, body: changeSchema } }, async (req) => {
    const saved = changeAdapter(file(), req.params.name, req.body, process.env, engine.adapters.list());
    engine.reloadConfig();
    return saved;
  });

  app.delete<{ Params: { name: string } }>('/api/setup/adapters/:name', { schema: { params: NAME_PARAMS } }, async (req) => {
    const saved = removeAdapter(file(), req.params.name, process.env, engine.adapters.list());
    engine.reloadConfig();
    return saved;
  });
}
