/**
 * `POST /hooks/<horde>/<trigger>`: a webhook delivery. Any content type, at most 1 MiB,
 * kept as raw bytes: the signature (when the trigger has a secret) is checked over
 * exactly what arrived, in constant time. Nothing starts before the trigger is found,
 * switched on and the signature holds; the answer is sent only once the run is
 * committed, and carries its id. A delivery id seen before answers with the run it
 * started (no second run). Each delivery is marked as on its way (`engine.intake`) from
 * its headers until it is handed to the engine, so deliveries arriving together share
 * one commit (engine/runs/intake-hold.ts).
 */
import type { FastifyInstance } from 'fastify';
import { KowalskiError } from '../../core/index.js';
import type { Engine } from '../../engine/index.js';
import { deliveryIdOf, verifyWebhook } from '../webhook-signature.js';

export const HOOK_BODY_LIMIT = 1024 * 1024;

const params = {
  type: 'object',
  required: ['horde', 'trigger'],
  additionalProperties: false,
  properties: {
    horde: { type: 'string', minLength: 1, maxLength: 200 },
    trigger: { type: 'string', minLength: 1, maxLength: 200 },
  },
} as const;

export async function hookRoutes(app: FastifyInstance, engine: Engine): Promise<void> {
  await app.register(async (scope) => {
    // Only here: every body is taken as bytes, whatever it says it is.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: HOOK_BODY_LIMIT }, (_req, body, done) => done(null, body));
    // On its way from its headers until the handler hands it over; a refused or aborted
    // delivery is let go when its response closes, so none is counted for ever.
    const onTheWay = new WeakMap<object, () => void>();
    scope.addHook('onRequest', (req, reply, done) => {
      const handedOver = engine.intake.arrive();
      onTheWay.set(req, handedOver);
      reply.raw.once('close', handedOver);
      done();
    });
    scope.post<{ Params: { horde: string; trigger: string }; Body: Buffer | undefined }>('/hooks/:horde/:trigger', { schema: { params }, bodyLimit: HOOK_BODY_LIMIT }, async (req, reply) => {
      const { horde, trigger } = req.params;
      const refused = (): KowalskiError => new KowalskiError('KW_ERR_UNAUTHORIZED',
        `a delivery to ${horde}/${trigger} needs a valid signature, or the API token ("Authorization: Bearer <token>", kept in <data dir>/api-token) when the trigger has no secret_env`);
      // Without the token, every refusal before the signature is checked is the same 401:
      // a stranger learns nothing of which hordes and triggers exist or are switched on.
      const target = await engine.triggers.webhookTarget(horde, trigger).catch((err: unknown) => {
        throw req.tokenVerified ? err : refused();
      });
      const { secret } = target;
      const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      let id = deliveryIdOf(req.headers);
      if (secret === undefined && !req.tokenVerified) throw refused();
      if (secret !== undefined) {
        const verdict = verifyWebhook({ headers: req.headers, rawBody, secret, nowMs: Date.now() });
        if (!verdict.ok) throw new KowalskiError(verdict.code, `${horde}/${trigger}: ${verdict.message}`);
        if (verdict.deliveryId !== undefined) id = verdict.deliveryId;
      }
      const firing = engine.triggers.webhook(target, {
        id,
        payload: rawBody.toString('utf8'),
        contentType: String(req.headers['content-type'] ?? ''),
      });
      onTheWay.get(req)?.();
      const result = await firing;
      switch (result.outcome) {
        case 'started':
          return reply.code(202).send({ runId: result.runId, duplicate: false });
        case 'duplicate':
          return reply.code(200).send({ runId: result.runId, duplicate: true, outcome: result.was });
        default:
          return reply.code(202).send({ outcome: result.outcome, detail: result.detail });
      }
    });
  });
}
