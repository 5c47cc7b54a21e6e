/**
 * The retry loop every provider shares. The SDKs' own retries are off so that `attempts`
 * is honest and one policy holds for all providers: retry 429, 500, 502, 503, 504, 529
 * and reset connections, with exponential backoff and jitter, honouring Retry-After;
 * never a refused connection, a 4xx, a timeout, or an answer that had started streaming.
 */
import { KowalskiError } from '../../core/index.js';
import type { ProviderSettings } from '../types.js';
import { Attempt } from './attempt.js';
import { RetryableFailure, exhaustedError, timeoutError } from './errors.js';
import type { Endpoint } from './errors.js';

/** A server asking for a longer wait than this is waited on for this long, then retried. */
export const RETRY_AFTER_CAP_MS = 60_000;
/** Backoff stops growing here. */
const BACKOFF_CAP_MS = 30_000;

export interface RetryContext {
  at: Endpoint;
  settings: Pick<ProviderSettings, 'timeoutMs' | 'maxRetries' | 'retryBaseMs'>;
  signal?: AbortSignal | undefined;
  onToken?: ((text: string) => void) | undefined;
}

/**
 * Retry-After in milliseconds: a number of seconds or an HTTP date; undefined when absent
 * or unreadable. `retry-after-ms` (sent by Anthropic) is preferred when present.
 */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms != null && ms.trim() !== '' && Number.isFinite(Number(ms)) && Number(ms) >= 0) return Number(ms);
  const value = headers?.get('retry-after')?.trim();
  if (value == null || value === '') return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The wait before retry number `retry` (1-based): base·2^(retry-1), the upper half jittered. */
export function backoffMs(retry: number, baseMs: number, random: () => number = Math.random): number {
  const full = Math.min(BACKOFF_CAP_MS, baseMs * 2 ** (retry - 1));
  return Math.round(full / 2 + (full / 2) * random());
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it is aborted. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Runs `attempt` until it succeeds or fails for good. `classify` turns what the provider's
 * client threw into a KowalskiError (final) or a RetryableFailure. Cancellation wins over
 * everything: once the caller's signal is aborted, this rejects with its reason as is.
 */
export async function withRetry<T>(
  ctx: RetryContext,
  attempt: (a: Attempt) => Promise<T>,
  classify: (err: unknown) => KowalskiError | RetryableFailure,
): Promise<{ value: T; attempts: number }> {
  const { maxRetries, retryBaseMs, timeoutMs } = ctx.settings;
  for (let n = 1; ; n++) {
    ctx.signal?.throwIfAborted();
    const a = new Attempt(timeoutMs, ctx.signal, ctx.onToken);
    let failure: KowalskiError | RetryableFailure;
    try {
      const value = await attempt(a);
      // An SDK may end its stream quietly when aborted: the abort still decides (below).
      a.signal.throwIfAborted();
      return { value, attempts: n };
    } catch (err) {
      if (ctx.signal?.aborted) throw ctx.signal.reason;
      if (a.callbackError !== undefined) throw a.callbackError.error;
      if (a.timedOut) throw timeoutError(ctx.at, timeoutMs, a.heard);
      failure = err instanceof KowalskiError || err instanceof RetryableFailure ? err : classify(err);
    } finally {
      a.end();
    }
    if (failure instanceof KowalskiError) throw failure;
    if (n > maxRetries || a.streamed) throw exhaustedError(failure, n, a.streamed, ctx.at);
    const wait = failure.retryAfterMs === undefined ? backoffMs(n, retryBaseMs) : Math.min(failure.retryAfterMs, RETRY_AFTER_CAP_MS);
    await sleep(wait, ctx.signal);
  }
}
