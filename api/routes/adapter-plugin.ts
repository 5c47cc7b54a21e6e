/**
 * `POST /adapters/plugin/<name>`: a request for the plugin adapter `<name>` (`type =
 * "plugin"`, engine/adapters/plugin/plugin-adapter.ts). The body is taken as raw bytes
 * (any content type, at most 1 MiB) and handed, with the headers, to the plugin's process,
 * whose adapter verifies its own signature and answers the messages it found; the host
 * records each (deduplicated) and answers the channel with what the plugin chose (or
 * `{ok, records, duplicates}`). Like the other adapter routes it needs no bearer token —
 * the plugin's signature check is the route's — and nothing here gives the plugin a way
 * into the API. A plugin that crashed, timed out or is no longer granted: its code (502,
 * 504, 409) with no more words than that — the details, which may hold the plugin's
 * stderr, go to the adapter's status only — counted there; the server goes on.
 */
import type { FastifyInstance } from 'fastify';
import { KowalskiError } from '../../core/index.js';
import type { Engine, PluginAdapterInstance } from '../../engine/index.js';
import { ADAPTER_BODY_LIMIT } from '../adapter-request.js';
import { NAME_PARAMS } from '../name-params.js';

export async function adapterPluginRoutes(app: FastifyInstance, engine: Engine): Promise<void> {
  await app.register(async (scope) => {
    // Only here: a signature covers the bytes exactly as they arrived.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: ADAPTER_BODY_LIMIT }, (_req, body, done) => done(null, body));
    scope.post<{ Params: { name: string }; Body: Buffer | undefined }>('/adapters/plugin/:name', { schema: { params: NAME_PARAMS }, bodyLimit: ADAPTER_BODY_LIMIT }, async (req, reply) => {
      const { instance } = engine.adapters.target('plugin', req.params.name);
      const handler = instance as Partial<PluginAdapterInstance>;
      if (typeof handler.handle !== 'function') throw new KowalskiError('KW_ERR_INTERNAL', `the plugin adapter ${req.params.name} does not answer HTTP requests`);
      let answer;
      try {
        answer = await handler.handle({ headers: req.headers, rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0) });
      } catch (err) {
        // The sender is not the operator (no token here): it learns the code, never the plugin's words (its stderr, its paths).
        if (!(err instanceof KowalskiError)) throw err;
        throw new KowalskiError(err.code, `the plugin adapter ${req.params.name} could not take this request (${err.code}); the operator sees why in kowalski adapters, or the app's Adapters screen`);
      }
      return reply.code(answer.status).send(answer.body);
    });
  });
}
