/**
 * `/api/setup`: the model provider (and `/api/setup/models`: the models its saved server lists), the tools folder, semantic search and web search (keys
 * are never sent back in full; web search's key only as a variable's name). A PUT answers
 * with the new setup, how config.toml was written (`written`: comments kept or not) and,
 * when it changed the model or a provider, the default model's check (`check`: ok, unreachable, model_missing or not_configured).
 */
import type { FastifyInstance } from 'fastify';
import type { Engine, SetupPatch } from '../../engine/index.js';
import type { ModelListProvider } from '../../contract/setup.js';
import { readSetup, writeSetup } from '../../engine/index.js';

const nullableString = (maxLength: number) => ({ type: ['string', 'null'], minLength: 1, maxLength }) as const;

const patchSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    model: {
      type: 'object', additionalProperties: false,
      properties: { default: nullableString(200), toolCalling: { type: 'string', enum: ['auto', 'native', 'text'] } },
    },
    providers: {
      type: 'object', additionalProperties: false,
      properties: {
        ollama: { type: 'object', additionalProperties: false, properties: { host: nullableString(500) } },
        anthropic: { type: 'object', additionalProperties: false, properties: { apiKey: nullableString(500), baseUrl: nullableString(500) } },
        gemini: { type: 'object', additionalProperties: false, properties: { apiKey: nullableString(500), baseUrl: nullableString(500) } },
        openai: { type: 'object', additionalProperties: false, properties: { apiKey: nullableString(500), baseUrl: nullableString(500) } },
      },
    },
    tools: { type: 'object', additionalProperties: false, properties: { root: nullableString(1000) } },
    vault: {
      type: 'object', additionalProperties: false,
      properties: {
        semantic: { type: 'object', additionalProperties: false, properties: { enabled: { type: 'boolean' }, model: nullableString(200) } },
      },
    },
    webSearch: {
      type: 'object', additionalProperties: false, required: ['provider'],
      properties: {
        provider: { type: ['string', 'null'], enum: ['searxng', 'brave', 'staan', null] }, url: nullableString(500), apiKeyEnv: nullableString(200),
        market: nullableString(10),
      },
    },
  },
} as const;

export function setupRoutes(app: FastifyInstance, engine: Engine): void {
  app.get('/api/setup', async () => readSetup(engine.paths.config));
  // The saved settings' server only: the page asks again after a save changes the host or base URL.
  app.get<{ Querystring: { provider: ModelListProvider } }>('/api/setup/models', {
    schema: { querystring: { type: 'object', additionalProperties: false, required: ['provider'], properties: { provider: { type: 'string', enum: ['ollama', 'openai'] } } } },
  }, async (req) => engine.listModels(req.query.provider));
  app.put<{ Body: SetupPatch }>('/api/setup', { schema: { body: patchSchema } }, async (req) => {
    const { setup, written, modelTouched } = writeSetup(engine.paths.config, req.body);
    engine.reloadConfig();
    return { ...setup, written, check: modelTouched ? await engine.checkDefaultModel() : null };
  });
}
