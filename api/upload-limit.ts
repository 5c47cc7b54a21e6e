/**
 * Uploads — a body on a route that takes more than the JSON limit (today POST /api/bundles,
 * up to 20 MiB) — are the largest buffers the server holds: the body as it arrives, once
 * whole, the copy handed to the review thread and what that thread inflates. At most `max`
 * are taken at once, from the first byte of the request to the last of the answer; one
 * more is refused with 503 KW_ERR_SERVER_BUSY before its body is read (Node reads and
 * drops the rest of it, so the client gets the answer). The peak memory uploads can take
 * is then `max` times one upload's, whatever the number of clients.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { KowalskiError } from '../core/index.js';

/** Uploads taken at once by default. */
export const MAX_UPLOADS = 2;

export interface UploadLimit {
  /** Uploads being taken now. */
  readonly active: number;
}

function hasBody(req: FastifyRequest): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/** Install after the guard (a refused request never takes a place). `jsonLimit`: the app's own body limit. */
export function installUploadLimit(app: FastifyInstance, options: { jsonLimit: number; max?: number }): UploadLimit {
  const max = options.max ?? MAX_UPLOADS;
  let active = 0;
  app.addHook('onRequest', async (req, reply) => {
    if ((req.routeOptions.bodyLimit ?? 0) <= options.jsonLimit || !hasBody(req)) return;
    if (active >= max) {
      throw new KowalskiError('KW_ERR_SERVER_BUSY', `the server is already taking ${max} uploads; send ${req.method} ${req.routeOptions.url ?? req.url} again once one has finished`);
    }
    active += 1;
    reply.raw.once('close', () => (active -= 1));
  });
  return {
    get active() {
      return active;
    },
  };
}
