/**
 * `POST /adapters/webhook/<name>`: a message for a webhook adapter (docs/adapters.md). The
 * body is taken as raw bytes (at most 1 MiB) and its signature checked over exactly what
 * arrived before anything is parsed or recorded; a refusal records nothing. The message is
 * then recorded (a delivery id seen before answers with that same record: no second turn)
 * and answered: with the agent's answer once its turn ends (`{sessionId, text}`, at most
 * `reply_timeout_secs`, else 202 with the record's id: send the same delivery again later
 * to get the answer), or — with `callback_url` — 202 at once, the answer POSTed there.
 */
import type { FastifyInstance } from 'fastify';
import { KowalskiError, messageOf } from '../../core/index.js';
import { MAX_MESSAGE_CHARS } from '../../engine/index.js';
import type { Engine, InboundRecord, WebhookSettings } from '../../engine/index.js';
import { verifyAdapterWebhook } from '../webhook-signature.js';
import { HOOK_BODY_LIMIT } from './hooks.js';
import { NAME_PARAMS } from '../name-params.js';

interface WebhookMessage {
  text: string;
  conversation?: string;
  from?: string;
}

/** The body as JSON `{text, conversation?, from?}`, or KW_ERR_BAD_REQUEST naming the field. */
function webhookMessage(rawBody: Buffer): WebhookMessage {
  let body: unknown;
  try {
    body = JSON.parse(rawBody.toString('utf8'));
  } catch (err) {
    throw new KowalskiError('KW_ERR_BAD_REQUEST', `the body is not valid JSON: ${messageOf(err)}`);
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new KowalskiError('KW_ERR_BAD_REQUEST', 'the body must be a JSON object {text, conversation?, from?}');
  const b = body as Record<string, unknown>;
  for (const key of Object.keys(b)) {
    if (!['text', 'conversation', 'from'].includes(key)) throw new KowalskiError('KW_ERR_BAD_REQUEST', `body/${key} is not a known field (text, conversation, from)`, { where: { key: `body/${key}` } });
  }
  if (typeof b.text !== 'string' || b.text.trim() === '') throw new KowalskiError('KW_ERR_BAD_REQUEST', 'body/text must be a non-empty string', { where: { key: 'body/text' } });
  if (b.text.length > MAX_MESSAGE_CHARS) throw new KowalskiError('KW_ERR_BAD_REQUEST', `body/text has ${b.text.length} characters; at most ${MAX_MESSAGE_CHARS} are taken`, { where: { key: 'body/text' } });
  for (const key of ['conversation', 'from'] as const) {
    const v = b[key];
    if (v !== undefined && (typeof v !== 'string' || v === '' || v.length > 200)) throw new KowalskiError('KW_ERR_BAD_REQUEST', `body/${key} must be a string of 1 to 200 characters`, { where: { key: `body/${key}` } });
  }
  return b as unknown as WebhookMessage;
}

/** `done`, or undefined once `ms` have passed. */
function within(done: Promise<InboundRecord>, ms: number): Promise<InboundRecord | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  return Promise.race([done, late]).finally(() => clearTimeout(timer));
}

export async function adapterWebhookRoutes(app: FastifyInstance, engine: Engine): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: HOOK_BODY_LIMIT }, (_req, body, done) => done(null, body));
    scope.post<{ Params: { name: string }; Body: Buffer | undefined }>('/adapters/webhook/:name', { schema: { params: NAME_PARAMS }, bodyLimit: HOOK_BODY_LIMIT }, async (req, reply) => {
      const { name } = req.params;
      const adapter = engine.adapters.target<WebhookSettings>('webhook', name);
      const rawBody = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
      const verdict = verifyAdapterWebhook({ headers: req.headers, rawBody, secret: adapter.settings.secret, nowMs: Date.now() });
      if (!verdict.ok) throw new KowalskiError(verdict.code, `adapter ${name}: ${verdict.message}`);
      const message = webhookMessage(rawBody);
      const deliveryId = verdict.deliveryId!;
      const accepted = engine.adapters.accept(name, {
        deliveryId, conversation: message.conversation ?? deliveryId, from: message.from ?? 'webhook', text: message.text, replyTo: {},
      });
      const duplicate = accepted.status === 'duplicate';
      if (adapter.settings.callbackUrl !== undefined) {
        return reply.code(202).send({ record: accepted.record.id, state: accepted.record.state, duplicate });
      }
      const record = await within(accepted.done, adapter.settings.replyTimeoutSecs * 1000);
      if (record === undefined) {
        const now = engine.adapters.record(accepted.record.id)!;
        return reply.code(202).send({ record: now.id, state: now.state, sessionId: now.sessionId, duplicate });
      }
      if (record.state === 'failed') throw new KowalskiError('KW_ERR_ADAPTER_TURN', record.lastError ?? `adapter ${name}: delivery ${deliveryId} got no answer`);
      return reply.code(200).send({ sessionId: record.sessionId, text: record.answer, record: record.id, duplicate });
    });
  });
}
