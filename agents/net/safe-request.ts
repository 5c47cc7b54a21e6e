/**
 * One HTTP request under web_fetch's address rules, redirects followed by hand: every
 * URL of the chain is checked before it is requested (and, through the safe agent, again
 * at connect time), the whole exchange has a time limit, and the body is read with a
 * limit on its DECODED size. `fetchPage` (a page for a model) and `fetchRaw` (a plugin's
 * `kowalski.fetch`) are both built on it.
 */
import type { Response } from 'undici';
import { KowalskiError, messageOf } from '../../core/index.js';
import { AllowList, checkUrl } from './address-policy.js';
import { readBounded } from './read-bounded.js';
import { createSafeAgent } from './safe-agent.js';
import type { SafeAgentOptions } from './safe-agent.js';

export interface SafeRequestOptions extends SafeAgentOptions {
  /** The whole exchange, redirects and body included, ms. */
  timeoutMs: number;
  /** Redirects followed; one more fails with KW_ERR_FETCH_LIMIT. */
  maxRedirects: number;
  /** Called with each URL of the chain (the first included) before anything else is checked or requested; throws to refuse it. */
  checkHop?: (url: URL) => void;
}

export interface SafeRequestInit {
  /** Default GET. */
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

/** Reads the answer while the connection is still open: `url` is the final URL, `redirects` each URL that redirected. */
export type Consume<T> = (res: Response, url: string, redirects: string[]) => Promise<T>;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers not carried to another origin by a redirect (as browsers do). */
const CREDENTIAL_HEADERS = new Set(['authorization', 'cookie', 'proxy-authorization']);

function parseUrl(raw: string): URL {
  try {
    return new URL(raw.trim());
  } catch {
    throw new KowalskiError('KW_ERR_FETCH_BLOCKED', `${JSON.stringify(raw)} is not an absolute URL`);
  }
}

/** The body's bytes, at most `maxBytes` of them after decoding; more fails with KW_ERR_FETCH_LIMIT as soon as it arrives. */
export async function readBody(res: Response, maxBytes: number, url: string): Promise<Buffer> {
  const body = await readBounded(res.body, maxBytes);
  if (body === null) throw new KowalskiError('KW_ERR_FETCH_LIMIT', `${url}: the answer is larger than ${maxBytes} bytes (after decompression); it was cut off there`);
  return body;
}

/** undici's fetch wraps what the connector threw in a TypeError('fetch failed'); find ours again. */
function asFetchError(err: unknown, url: string): KowalskiError {
  if (err instanceof KowalskiError) return err;
  const cause = err instanceof Error ? err.cause : undefined;
  if (cause instanceof KowalskiError) return cause;
  const detail = cause instanceof Error ? ((cause as NodeJS.ErrnoException).code ?? cause.message) : messageOf(err);
  return new KowalskiError('KW_ERR_FETCH_FAILED', `${url}: cannot be fetched: ${detail}`, { cause: err });
}

/** Names the hop that led to `url`, so a refusal at a redirect says where it came from. */
function viaRedirect(err: KowalskiError, redirects: string[]): KowalskiError {
  const from = redirects.at(-1);
  if (from === undefined) return err;
  return new KowalskiError(err.code, `${err.message} (reached by a redirect from ${from})`, { cause: err });
}

function nextHop(res: Response, current: URL, redirects: string[], maxRedirects: number): URL {
  const location = res.headers.get('location');
  if (location === null) {
    throw new KowalskiError('KW_ERR_FETCH_FAILED', `${current.href} answered HTTP ${res.status} without a Location to redirect to`);
  }
  if (redirects.length >= maxRedirects) {
    throw new KowalskiError('KW_ERR_FETCH_LIMIT', `${redirects[0] ?? current.href}: more than ${maxRedirects} redirects; the last led from ${current.href} to ${location}`);
  }
  let next: URL;
  try {
    next = new URL(location, current);
  } catch {
    throw new KowalskiError('KW_ERR_FETCH_FAILED', `${current.href} redirects to ${JSON.stringify(location)}, which is not a URL`);
  }
  redirects.push(current.href);
  return next;
}

/** What a redirect does to the request: 303 (and 301/302 after a POST) turn it into a GET without a body; another origin gets no credentials. */
function redirected(init: SafeRequestInit, status: number, from: URL, to: URL): SafeRequestInit {
  const method = (init.method ?? 'GET').toUpperCase();
  const toGet = status === 303 ? method !== 'HEAD' : (status === 301 || status === 302) && method === 'POST';
  const headers = { ...init.headers };
  if (from.origin !== to.origin) {
    for (const name of Object.keys(headers)) if (CREDENTIAL_HEADERS.has(name.toLowerCase())) delete headers[name];
  }
  return toGet ? { method: 'GET', headers } : { ...init, headers };
}

/**
 * Request `url` and hand the answer that is not a redirect to `consume`. Rejects with what
 * `checkHop` throws, KW_ERR_FETCH_BLOCKED (scheme, address), KW_ERR_FETCH_LIMIT
 * (time, redirects, and what `consume` reads past its limit) or KW_ERR_FETCH_FAILED (DNS,
 * connection); with `signal`'s reason when `signal` aborts.
 */
export async function safeRequest<T>(url: string, init: SafeRequestInit, options: SafeRequestOptions, signal: AbortSignal | undefined, consume: Consume<T>): Promise<T> {
  const allow = new AllowList(options.testOnlyAllow);
  const deadline = AbortSignal.timeout(options.timeoutMs);
  const both = signal === undefined ? deadline : AbortSignal.any([signal, deadline]);
  let current = parseUrl(url);
  let request = init;
  // undici is loaded at the first request: a process that never fetches (every CLI command) does not load it.
  const undici = await import('undici');
  const { fetch } = undici;
  // An agent per request: no pooled connection outlives it, so each request checks its addresses anew.
  const agent = createSafeAgent(undici, options);
  const redirects: string[] = [];
  const send = async (target: URL): Promise<Response> => {
    options.checkHop?.(target);
    checkUrl(target, allow);
    return fetch(target, { dispatcher: agent, redirect: 'manual', signal: both, method: request.method ?? 'GET', headers: request.headers ?? {}, body: request.body ?? null });
  };
  const fail = (err: unknown): never => {
    if (signal?.aborted === true) throw signal.reason;
    if (deadline.aborted) throw new KowalskiError('KW_ERR_FETCH_LIMIT', `${current.href}: the fetch took longer than ${options.timeoutMs} ms and was stopped`);
    throw viaRedirect(asFetchError(err, current.href), redirects);
  };
  try {
    for (;;) {
      const res = await send(current).catch(fail);
      if (REDIRECT_STATUSES.has(res.status)) {
        await res.body?.cancel();
        const next = nextHop(res, current, redirects, options.maxRedirects);
        request = redirected(request, res.status, current, next);
        current = next;
        continue;
      }
      return await consume(res, current.href, redirects).catch(fail);
    }
  } finally {
    await agent.destroy();
  }
}
