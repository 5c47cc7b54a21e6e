/**
 * The route of an adapter that answers HTTP requests itself (Slack, Discord): the body is
 * taken as raw bytes (any content type, at most 1 MiB) and handed, with the headers, to the
 * running adapter of that type, which checks the signature before anything else. Several
 * adapters of one type (two Slack apps) share the route: each is asked in turn, and the
 * one whose secret signed the request answers; when none did, the request is refused 401.
 */
import type { FastifyInstance } from 'fastify';
import { KowalskiError } from '../core/index.js';
import type { Engine } from '../engine/index.js';
import { isHttpAdapter } from '../engine/index.js';
import type { AdapterType, InboundAnswer, InboundRequest } from '../engine/index.js';

export const ADAPTER_BODY_LIMIT = 1024 * 1024;

export async function adapterRequestRoute(app: FastifyInstance, engine: Engine, type: AdapterType, url: string): Promise<void> {
  await app.register(async (scope) => {
    // Only here: the signature covers the bytes exactly as they arrived.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: ADAPTER_BODY_LIMIT }, (_req, body, done) => done(null, body));
    scope.post<{ Body: Buffer | undefined }>(url, { bodyLimit: ADAPTER_BODY_LIMIT }, async (req, reply) => {
      const request: InboundRequest = { headers: req.headers, rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0) };
      const answer = receive(engine, type, request);
      return reply.code(answer.status).send(answer.body);
    });
  });
}

function receive(engine: Engine, type: AdapterType, request: InboundRequest): InboundAnswer {
  const configured = engine.adapters.list().filter((s) => s.type === type);
  if (configured.length === 0) throw new KowalskiError('KW_ERR_ADAPTER_NOT_FOUND', `no ${type} adapter is configured: add [adapters.${type}] to config.toml`);
  const running = configured.filter((s) => s.state === 'running');
  // Said to anyone who asks, before a signature is checked: no more than that it does not run (the app shows why).
  if (running.length === 0) throw new KowalskiError('KW_ERR_ADAPTER_DISABLED', `the ${type} adapter is not running: see kowalski adapters, or the app's Adapters screen`);
  let refusal: unknown;
  for (const status of running) {
    const { instance } = engine.adapters.target(type, status.name);
    if (!isHttpAdapter(instance)) throw new KowalskiError('KW_ERR_INTERNAL', `the ${type} adapter ${status.name} does not answer HTTP requests`);
    try {
      return instance.receive(request);
    } catch (err) {
      // Signed by another app's secret, maybe: ask the next one.
      if (!(err instanceof KowalskiError) || err.code !== 'KW_ERR_WEBHOOK_SIGNATURE') throw err;
      refusal ??= err;
    }
  }
  throw refusal;
}
