/**
 * Setup's MCP servers (`[[mcp.servers]]` in config.toml): `GET /api/setup/mcp/servers`
 * lists them (never a token or an env value), `POST` adds one (stdio: command, args, cwd,
 * env; http: url, token; either: timeouts), `PUT /api/setup/mcp/servers/:name` puts a new
 * entry in its place (keeping a token and env values it is not given), `POST /api/setup/mcp/servers/:name/test` starts or reaches it and answers its
 * tools (or why it did not answer), `DELETE /api/setup/mcp/servers/:name` removes it. An
 * add, an edit or a remove keeps config.toml's comments and reloads the config.
 */
import type { FastifyInstance } from 'fastify';
import type { McpServerAdd, McpServerEdit } from '../../contract/setup.js';
import type { Engine } from '../../engine/index.js';
import { addMcpServer, editMcpServer, readMcpServers, removeMcpServer, scrubSecrets, testMcpServer } from '../../engine/index.js';
import { NAME_PARAMS } from '../name-params.js';

const SECONDS = { type: 'number', exclusiveMinimum: 0 } as const;
const serverProperties = {
  transport: { type: 'string', enum: ['stdio', 'http'] },
  command: { type: 'string', minLength: 1, maxLength: 1000 },
  args: { type: 'array', maxItems: 100, items: { type: 'string', maxLength: 2000 } },
  cwd: { type: 'string', maxLength: 1000 },
  url: { type: 'string', minLength: 1, maxLength: 2000 },
  timeoutSecs: SECONDS,
  connectTimeoutSecs: SECONDS,
} as const;

const addSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'transport'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 64 },
    ...serverProperties,
    env: { type: 'object', maxProperties: 100, additionalProperties: { type: 'string', maxLength: 10_000 } },
    token: { type: 'string', maxLength: 10_000 },
  },
} as const;

const editSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['transport'],
  properties: {
    ...serverProperties,
    env: { type: 'object', maxProperties: 100, additionalProperties: { type: ['string', 'null'], maxLength: 10_000 } },
    token: { type: ['string', 'null'], maxLength: 10_000 },
  },
} as const;

export function setupMcpRoutes(app: FastifyInstance, engine: Engine): void {
  app.get('/api/setup/mcp/servers', async () => ({ servers: readMcpServers(engine.paths.config) }));

  app.post<{ Body: McpServerAdd }>('/api/setup/mcp/servers', { schema: { body: addSchema } }, async (req) => {
    const saved = addMcpServer(engine.paths.config, req.body);
    engine.reloadConfig();
    return saved;
  });

  app.put<{ Params: { name: string }; Body: McpServerEdit }>('/api/setup/mcp/servers/:name', { schema: { params: NAME_PARAMS, body: editSchema } }, async (req) => {
    const saved = editMcpServer(engine.paths.config, req.params.name, req.body);
    engine.reloadConfig();
    return saved;
  });

  app.post<{ Params: { name: string } }>('/api/setup/mcp/servers/:name/test', { schema: { params: NAME_PARAMS } }, async (req) => {
    const result = await testMcpServer(engine.paths.config, req.params.name, engine.paths.dataDir);
    // A server's stderr is in the message: it may echo what its env holds.
    return result.error === null ? result : { ...result, error: { ...result.error, message: scrubSecrets(result.error.message, engine.secretValues()) } };
  });

  app.delete<{ Params: { name: string } }>('/api/setup/mcp/servers/:name', { schema: { params: NAME_PARAMS } }, async (req) => {
    const saved = removeMcpServer(engine.paths.config, req.params.name);
    engine.reloadConfig();
    return saved;
  });
}
