/**
 * Every error leaves the server as `{error: {code, message}}` with a stable code and a
 * fitting status: ours, Fastify's (schema, body, router) and — in client-errors.ts — the
 * HTTP parser's. A client that went away mid-request is one log line, not an error.
 */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { KowalskiError, toPlainError } from '../core/index.js';
import type { ErrorCode } from '../core/index.js';

const STATUS: Partial<Record<ErrorCode, number>> = {
  KW_ERR_BAD_REQUEST: 400,
  KW_ERR_BAD_URL: 400,
  KW_ERR_MALFORMED_REQUEST: 400,
  KW_ERR_REQUEST_TIMEOUT: 408,
  KW_ERR_URI_TOO_LONG: 414,
  KW_ERR_HEADERS_TOO_LARGE: 431,
  KW_ERR_SERVER_BUSY: 503,
  KW_ERR_USAGE: 400,
  KW_ERR_INPUT_INVALID: 400,
  KW_ERR_PATH_ESCAPES: 400,
  KW_ERR_CONFIG_INVALID: 400,
  KW_ERR_UNAUTHORIZED: 401,
  KW_ERR_LOGIN_CODE: 401,
  KW_ERR_FORBIDDEN_HOST: 403,
  KW_ERR_FORBIDDEN_ORIGIN: 403,
  KW_ERR_NOT_FOUND: 404,
  KW_ERR_RUN_NOT_FOUND: 404,
  KW_ERR_HORDE_NOT_FOUND: 404,
  KW_ERR_ARTIFACT_NOT_FOUND: 404,
  KW_ERR_TRACE_NOT_FOUND: 404,
  KW_ERR_CHAT_NOT_FOUND: 404,
  KW_ERR_CHAT_BUSY: 409,
  KW_ERR_VAULT_REINDEX_NEEDED: 409,
  KW_ERR_CHAT_NOT_STOPPED: 409,
  KW_ERR_NO_MODEL: 422,
  KW_ERR_MODEL_NOT_READY: 422,
  KW_ERR_TRIGGER_NOT_FOUND: 404,
  KW_ERR_VAULT_PATH: 400,
  KW_ERR_VAULT_NOT_FOUND: 404,
  KW_ERR_VAULT_TOO_LARGE: 422,
  KW_ERR_VAULT_WRITE_NOT_FOUND: 404,
  KW_ERR_VAULT_NOT_REVERTIBLE: 409,
  KW_ERR_VAULT_CONFLICT: 409,
  KW_ERR_MEMORY_CONSOLIDATE: 502,
  KW_ERR_AGENT_NOT_FOUND: 404,
  KW_ERR_AGENT_INVALID: 422,
  KW_ERR_AGENT_BUILTIN: 409,
  KW_ERR_TRIGGER_DISABLED: 409,
  KW_ERR_HORDE_EXISTS: 409,
  KW_ERR_MCP_SERVER_EXISTS: 409,
  KW_ERR_MCP_CONFIG: 422,
  KW_ERR_MCP_SERVER_NOT_FOUND: 404,
  KW_ERR_DRAFT_NOT_FOUND: 404,
  KW_ERR_PLUGIN_NOT_FOUND: 404,
  KW_ERR_PLUGIN_INVALID: 409,
  KW_ERR_PLUGIN_CHANGED: 409,
  KW_ERR_PLUGIN_NOT_GRANTED: 409,
  KW_ERR_PLUGIN_ADAPTER: 502,
  KW_ERR_PLUGIN_CRASHED: 502,
  KW_ERR_PLUGIN_TIMEOUT: 504,
  KW_ERR_PLUGIN_FAILED: 503,
  KW_ERR_PLUGIN_START: 502,
  KW_ERR_PLUGIN_PERMISSION: 502,
  KW_ERR_PLUGIN_RESULT_LIMIT: 502,
  KW_ERR_PLUGIN_STOPPED: 503,
  KW_ERR_DRAFT_INVALID: 422,
  KW_ERR_DRAFT_TOO_LARGE: 413,
  KW_ERR_WEBHOOK_SIGNATURE: 401,
  KW_ERR_WEBHOOK_STALE: 401,
  KW_ERR_WEBHOOK_SECRET: 503,
  KW_ERR_ADAPTER_NOT_FOUND: 404,
  KW_ERR_ADAPTER_EXISTS: 409,
  KW_ERR_ADAPTER_DISABLED: 409,
  KW_ERR_ADAPTER_CONFIG: 422,
  KW_ERR_ADAPTER_TURN: 502,
  KW_ERR_BUNDLE_INVALID: 422,
  KW_ERR_HORDE_TOO_LARGE: 422,
  KW_ERR_RUN_FINISHED: 409,
  KW_ERR_RUN_ELSEWHERE: 409,
  KW_ERR_FIRING_ELSEWHERE: 409,
  KW_ERR_TRIGGER_ELSEWHERE: 409,
  KW_ERR_VAULT_NOTE_BUSY: 409,
  KW_ERR_STORE_FENCED: 503,
  KW_ERR_STORE_UNAVAILABLE: 503,
  KW_ERR_RUN_ACTIVE: 409,
  KW_ERR_RERUN_STEP_UNKNOWN: 422,
  KW_ERR_RERUN_MISMATCH: 409,
  KW_ERR_NO_PENDING_APPROVAL: 409,
  KW_ERR_BUDGET_INVALID: 400,
  KW_ERR_BUDGET_TOO_LOW: 409,
  KW_ERR_APPROVAL_STALE: 409,
  KW_ERR_REVIEW_STALE: 409,
  KW_ERR_NOT_A_REVIEW: 409,
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

/** The one shape of every error answer. */
export function errorBody(code: ErrorCode, message: string): { error: { code: ErrorCode; message: string } } {
  return { error: { code, message } };
}

/** A path as an error message shows it: without the query, and not endlessly long. */
function shownPath(url: string): string {
  const p = url.split('?')[0]!;
  return p.length > 200 ? `${p.slice(0, 200)}…` : p;
}

/** Fastify's own errors (schema, body limit, media type, bad JSON, the router's) in our codes. */
function fromFastify(err: FastifyError, req: FastifyRequest): KowalskiError | undefined {
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
      return new KowalskiError('KW_ERR_UNSUPPORTED_MEDIA', `request bodies must be JSON (Content-Type: application/json): ${err.message}`);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new KowalskiError('KW_ERR_BAD_REQUEST', 'the body is not as long as its Content-Length says');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new KowalskiError('KW_ERR_BAD_REQUEST', err.message);
    case 'FST_ERR_BAD_URL':
      return new KowalskiError('KW_ERR_BAD_URL', `the path ${JSON.stringify(shownPath(req.raw.url ?? ''))} does not decode: a % must be followed by two hex digits of valid UTF-8`);
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new KowalskiError('KW_ERR_URI_TOO_LONG', `a part of the path ${JSON.stringify(shownPath(req.raw.url ?? ''))} is longer than any id or name the API takes`);
    default:
      if (err.statusCode === 400 && err instanceof SyntaxError) return new KowalskiError('KW_ERR_BAD_REQUEST', `the body is not valid JSON: ${err.message}`);
      if (err.statusCode === 413) return new KowalskiError('KW_ERR_BODY_TOO_LARGE', err.message);
      if (err.statusCode === 414) return new KowalskiError('KW_ERR_URI_TOO_LONG', err.message);
      if (err.statusCode === 415) return new KowalskiError('KW_ERR_UNSUPPORTED_MEDIA', err.message);
      if (err.code?.startsWith('FST_ERR_') === true && err.statusCode !== undefined && err.statusCode >= 400 && err.statusCode < 500) {
        return new KowalskiError('KW_ERR_BAD_REQUEST', `${err.message} (${err.code})`);
      }
      return undefined;
  }
}

const GONE = new Set(['ECONNRESET', 'ECONNABORTED', 'EPIPE', 'ERR_STREAM_PREMATURE_CLOSE']);

/** The client closed the connection before its request was read (an upload cut mid-body). */
function clientWentAway(err: FastifyError, req: FastifyRequest): boolean {
  return GONE.has(String(err.code)) || (req.raw.aborted && err.message === 'aborted');
}

export interface ErrorSinks {
  /** Unexpected errors (bugs): logged with their stack. */
  onInternal: (err: unknown) => void;
  /** One-line notices, e.g. a client that went away mid-request. */
  log: (line: string) => void;
  /** The text with every secret the server knows replaced (engine/secrets/secret-list.ts); applied to each error answer. */
  scrub?: (text: string) => string;
}

/** Answer any error in our shape; used by the error handler and for the router's errors (Fastify's `frameworkErrors`). */
export function answerError(sinks: ErrorSinks) {
  return (err: FastifyError, req: FastifyRequest, reply: FastifyReply): void => {
    if (clientWentAway(err, req)) {
      sinks.log(`${req.method} ${shownPath(req.url)}: the client went away (${err.message})`);
      reply.code(400).send(errorBody('KW_ERR_BAD_REQUEST', 'the request was not received whole'));
      return;
    }
    const known = err instanceof KowalskiError ? err : fromFastify(err, req);
    if (known === undefined) sinks.onInternal(err);
    const plain = toPlainError(known ?? err);
    const message = known === undefined ? `internal error: ${plain.message}` : plain.message;
    reply.code(statusOf(plain.code)).send(errorBody(plain.code, sinks.scrub === undefined ? message : sinks.scrub(message)));
  };
}

export function installErrorHandling(app: FastifyInstance, sinks: ErrorSinks): void {
  app.setErrorHandler(answerError(sinks));
  app.setNotFoundHandler((req, reply) => reply.code(404).send(errorBody('KW_ERR_NOT_FOUND', `no route ${req.method} ${shownPath(req.url)}`)));
}
