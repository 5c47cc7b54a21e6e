/** Every error leaves the server as `{error: {code, message}}` with a stable code and a fitting status. */
import type { FastifyError, FastifyInstance } from 'fastify';
import { KowalskiError, toPlainError } from '../core/index.js';
import type { ErrorCode } from '../core/index.js';

const STATUS: Partial<Record<ErrorCode, number>> = {
  KW_ERR_BAD_REQUEST: 400,
  KW_ERR_USAGE: 400,
  KW_ERR_INPUT_INVALID: 400,
  KW_ERR_PATH_ESCAPES: 400,
  KW_ERR_CONFIG_INVALID: 400,
  KW_ERR_UNAUTHORIZED: 401,
  KW_ERR_FORBIDDEN_HOST: 403,
  KW_ERR_FORBIDDEN_ORIGIN: 403,
  KW_ERR_NOT_FOUND: 404,
  KW_ERR_RUN_NOT_FOUND: 404,
  KW_ERR_HORDE_NOT_FOUND: 404,
  KW_ERR_ARTIFACT_NOT_FOUND: 404,
  KW_ERR_TRACE_NOT_FOUND: 404,
  KW_ERR_TRIGGER_NOT_FOUND: 404,
  KW_ERR_TRIGGER_DISABLED: 409,
  KW_ERR_HORDE_EXISTS: 409,
  KW_ERR_WEBHOOK_SIGNATURE: 401,
  KW_ERR_WEBHOOK_STALE: 401,
  KW_ERR_WEBHOOK_SECRET: 503,
  KW_ERR_BUNDLE_INVALID: 422,
  KW_ERR_HORDE_TOO_LARGE: 422,
  KW_ERR_RUN_FINISHED: 409,
  KW_ERR_NO_PENDING_APPROVAL: 409,
  KW_ERR_BODY_TOO_LARGE: 413,
  KW_ERR_UNSUPPORTED_MEDIA: 415,
  KW_ERR_HORDE_INVALID: 422,
  KW_ERR_STEP_KIND_UNKNOWN: 422,
  KW_ERR_REPLAY_DIVERGED: 500,
  KW_ERR_STORE_CORRUPT: 503,
  KW_ERR_INTERNAL: 500,
};

export function statusOf(code: ErrorCode): number {
  return STATUS[code] ?? 500;
}

/** Fastify's own errors (schema, body limit, media type, bad JSON) in our codes. */
function fromFastify(err: FastifyError): KowalskiError | undefined {
  if (err.validation !== undefined) {
    const where = err.validationContext ?? 'body';
    const first = err.validation[0];
    const field = `${where}${first?.instancePath ?? ''}`;
    const missing = first?.keyword === 'required' ? `/${String((first.params as { missingProperty?: string }).missingProperty)}` : '';
    const extra = first?.keyword === 'additionalProperties' ? `/${String((first.params as { additionalProperty?: string }).additionalProperty)}` : '';
    const message = first?.keyword === 'required' ? 'is required' : first?.keyword === 'additionalProperties' ? 'is not a known field' : (first?.message ?? err.message);
    return new KowalskiError('KW_ERR_BAD_REQUEST', `${field}${missing}${extra} ${message}`, { where: { key: `${field}${missing}${extra}` } });
  }
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new KowalskiError('KW_ERR_BODY_TOO_LARGE', err.message);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new KowalskiError('KW_ERR_UNSUPPORTED_MEDIA', `request bodies must be JSON (Content-Type: application/json): ${err.message}`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new KowalskiError('KW_ERR_BAD_REQUEST', err.message);
    default:
      if (err.statusCode === 400 && err instanceof SyntaxError) return new KowalskiError('KW_ERR_BAD_REQUEST', `the body is not valid JSON: ${err.message}`);
      if (err.statusCode === 413) return new KowalskiError('KW_ERR_BODY_TOO_LARGE', err.message);
      if (err.statusCode === 415) return new KowalskiError('KW_ERR_UNSUPPORTED_MEDIA', err.message);
      return undefined;
  }
}

export function installErrorHandling(app: FastifyInstance, onInternal: (err: unknown) => void): void {
  app.setErrorHandler((err: FastifyError, _req, reply) => {
    const known = err instanceof KowalskiError ? err : fromFastify(err);
    if (known === undefined) onInternal(err);
    const plain = toPlainError(known ?? err);
    const message = known === undefined ? `internal error: ${plain.message}` : plain.message;
    return reply.code(statusOf(plain.code)).send({ error: { code: plain.code, message } });
  });
  app.setNotFoundHandler((req, reply) => reply.code(404).send({ error: { code: 'KW_ERR_NOT_FOUND', message: `no route ${req.method} ${req.url.split('?')[0]}` } }));
}
