/**
 * Failures of a model call → KowalskiErrors with a code and a message that says what to
 * do, or a RetryableFailure that the retry loop may try again.
 */
import { KowalskiError, messageOf } from '../../core/index.js';

/** Where a call went, for messages: `label` as a person names the provider. */
export interface Endpoint {
  label: string;
  url: string;
  model: string;
  /** Said after "connection refused", e.g. ": is `ollama serve` running?". */
  refusedHint?: string;
}

/** A passing condition (429, 5xx, overloaded, a reset connection): the retry loop decides. */
export class RetryableFailure extends Error {
  constructor(
    /** The HTTP status, or `reset` for a connection lost mid-call. */
    readonly status: number | 'reset',
    message: string,
    /** From Retry-After, when the server sent one. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'RetryableFailure';
  }
}

/** Statuses that say "try again later". 529 is Anthropic's "overloaded". */
const RETRY_STATUSES = new Set([429, 500, 502, 503, 504, 529]);

/** Every `code` on the error, its causes, and the members of an AggregateError (Happy Eyeballs tries several addresses). */
function errorCodes(err: unknown, seen = new Set<unknown>()): string[] {
  if (typeof err !== 'object' || err === null || seen.has(err)) return [];
  seen.add(err);
  const codes: string[] = [];
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') codes.push(code);
  if (err instanceof AggregateError) for (const e of err.errors) codes.push(...errorCodes(e, seen));
  codes.push(...errorCodes((err as { cause?: unknown }).cause, seen));
  return codes;
}

const UNREACHABLE: ReadonlyArray<readonly [codes: string[], why: string]> = [
  [['ECONNREFUSED'], 'connection refused'],
  [['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME'], 'host not found'],
  [['EHOSTUNREACH', 'ENETUNREACH', 'EADDRNOTAVAIL'], 'no route to the host'],
  [['UND_ERR_CONNECT_TIMEOUT', 'ETIMEDOUT'], 'connecting timed out'],
];
const RESET = ['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'];

/**
 * A failure below HTTP (the fetch of Node and both SDKs wrap the socket's error in `cause`).
 * Refused, unknown or unroutable hosts fail at once: retrying would only delay the message.
 * A reset connection may be retried. Undefined when `err` is not a connection failure.
 */
export function connectionFailure(err: unknown, at: Endpoint): KowalskiError | RetryableFailure | undefined {
  const codes = errorCodes(err);
  for (const [list, why] of UNREACHABLE) {
    if (codes.some((c) => list.includes(c))) {
      return new KowalskiError('KW_ERR_MODEL_UNREACHABLE', `cannot reach ${at.label} at ${at.url} (${why})${why === 'connection refused' ? at.refusedHint ?? '' : ''}`, { cause: err });
    }
  }
  // undici says "terminated" when the server closes the socket in the middle of a body.
  if (codes.some((c) => RESET.includes(c)) || (err instanceof TypeError && err.message === 'terminated')) {
    return new RetryableFailure('reset', `the connection to ${at.label} at ${at.url} was reset`);
  }
  if (err instanceof TypeError && err.message === 'fetch failed') {
    const cause = (err as { cause?: unknown }).cause;
    return new KowalskiError('KW_ERR_MODEL_UNREACHABLE', `cannot reach ${at.label} at ${at.url} (${messageOf(cause)})`, { cause: err });
  }
  return undefined;
}

/**
 * An HTTP error status that has no provider-specific meaning (each provider words its own
 * 404, "no such model", with what to do about it). `message` is the provider's own, from
 * its error body.
 */
export function httpFailure(status: number, message: string, retryAfterMs: number | undefined, at: Endpoint): KowalskiError | RetryableFailure {
  if (RETRY_STATUSES.has(status)) return new RetryableFailure(status, message, retryAfterMs);
  if (status === 401 || status === 403) {
    return new KowalskiError('KW_ERR_MODEL_AUTH', `${at.label} at ${at.url} refused the key (${status}): ${message}`);
  }
  if (status === 408) return new KowalskiError('KW_ERR_MODEL_TIMEOUT', `${at.label} at ${at.url} timed out the request (408): ${message}`);
  if (status >= 500) return new KowalskiError('KW_ERR_MODEL_SERVER', `${at.label} at ${at.url} failed (${status}): ${message}`);
  return new KowalskiError('KW_ERR_MODEL_REQUEST', `${at.label} refused the request for ${at.model} (${status}): ${message}`);
}

export function timeoutError(at: Endpoint, timeoutMs: number, heard: boolean): KowalskiError {
  const secs = `${Math.round(timeoutMs / 100) / 10} s`;
  const what = heard ? `went silent for ${secs} in the middle of its answer` : `did not answer within ${secs}`;
  return new KowalskiError('KW_ERR_MODEL_TIMEOUT', `${at.label} ${at.model} at ${at.url} ${what} (the limit is [model] timeout_secs in config.toml)`);
}

/** After the last retry: what kept failing, and how often. */
export function exhaustedError(failure: RetryableFailure, attempts: number, streamed: boolean, at: Endpoint): KowalskiError {
  const times = streamed
    ? `after part of the answer had arrived (not retried, the text was already passed on; attempt ${attempts})`
    : `on ${attempts === 1 ? 'the only attempt' : `all ${attempts} attempts`}`;
  if (failure.status === 'reset') {
    return new KowalskiError('KW_ERR_MODEL_UNREACHABLE', `${failure.message} ${times}`, { cause: failure });
  }
  const rateLimited = failure.status === 429;
  return new KowalskiError(rateLimited ? 'KW_ERR_MODEL_RATE_LIMITED' : 'KW_ERR_MODEL_SERVER',
    `${at.label} ${at.model} answered ${failure.status}${rateLimited ? ' (rate limited)' : ''} ${times}: ${failure.message}`, { cause: failure });
}
