/**
 * Fetch one body safely: http/https only, every URL of a redirect chain checked before it
 * is requested and again at connect time, a total time limit and a limit on the DECODED
 * body counted while it streams (a gzip bomb or an endless body is cut off;
 * Content-Length is never trusted), and only the kinds of content the caller takes.
 * `fetchPage` (a page as Markdown for web_fetch and ingest) and the calendar's ICS
 * sources fetch through it.
 */
import { fetch } from 'undici';
import type { Response } from 'undici';
import { KowalskiError } from '../../core/index.js';
import { AllowList, checkUrl } from './address-policy.js';
import { createSafeAgent } from './safe-agent.js';
import type { SafeAgentOptions } from './safe-agent.js';

export interface FetchBodyOptions extends SafeAgentOptions {
  /** The whole fetch, redirects and body included (default 20 000 ms). */
  timeoutMs?: number;
  /** Bytes of the body after decompression (default 5 MiB). */
  maxBytes?: number;
  /** Redirects followed (default 5); one more fails with KW_ERR_FETCH_LIMIT. */
  maxRedirects?: number;
}

/** What content a caller takes: a test of the media type, and its description for the refusal ("HTML, plain text … pages"). */
export interface AcceptedContent {
  /** The Accept header sent. */
  header: string;
  accepts(mime: string): boolean;
  described: string;
}

export interface FetchedBody {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  /** The media type, without parameters (`text/html`). */
  contentType: string;
  /** The whole Content-Type header (its charset). */
  contentTypeHeader: string;
  body: Buffer;
  /** Each URL that answered with a redirect, in order (the first is the one asked for). */
  redirects: string[];
}

export const FETCH_DEFAULTS = { timeoutMs: 20_000, maxBytes: 5 * 1024 * 1024, maxRedirects: 5 } as const;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'kowalski (web_fetch; +https://github.com/kowalski)';

function parseUrl(raw: string): URL {
  try {
    return new URL(raw.trim());
  } catch {
    throw new KowalskiError('KW_ERR_FETCH_BLOCKED', `${JSON.stringify(raw)} is not an absolute URL`);
  }
}

/** The body's bytes, at most `maxBytes` of them after decoding; more fails as soon as it arrives. */
async function readBody(res: Response, maxBytes: number, url: string): Promise<Buffer> {
  if (res.body === null) return Buffer.alloc(0);
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel();
      throw new KowalskiError('KW_ERR_FETCH_LIMIT', `${url}: the page is larger than ${maxBytes} bytes (after decompression); it was cut off there`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, total);
}

/** undici's fetch wraps what the connector threw in a TypeError('fetch failed'); find ours again. */
function asFetchError(err: unknown, url: string): KowalskiError {
  if (err instanceof KowalskiError) return err;
  const cause = err instanceof Error ? err.cause : undefined;
  if (cause instanceof KowalskiError) return cause;
  const detail = cause instanceof Error ? ((cause as NodeJS.ErrnoException).code ?? cause.message) : err instanceof Error ? err.message : String(err);
  return new KowalskiError('KW_ERR_FETCH_FAILED', `${url}: cannot be fetched: ${detail}`, { cause: err });
}

/** Names the hop that led to `url`, so a refusal at a redirect says where it came from. */
function viaRedirect(err: KowalskiError, redirects: string[]): KowalskiError {
  const from = redirects.at(-1);
  if (from === undefined) return err;
  return new KowalskiError(err.code, `${err.message} (reached by a redirect from ${from})`, { cause: err });
}

/**
 * Fetch `url`'s body. Rejects with KW_ERR_FETCH_BLOCKED (scheme, address, content type),
 * KW_ERR_FETCH_LIMIT (size, time, redirects) or KW_ERR_FETCH_FAILED (DNS, connection,
 * HTTP error status); with `signal`'s reason when `signal` aborts.
 */
export async function fetchBody(url: string, content: AcceptedContent, options: FetchBodyOptions = {}, signal?: AbortSignal): Promise<FetchedBody> {
  const timeoutMs = options.timeoutMs ?? FETCH_DEFAULTS.timeoutMs;
  const maxBytes = options.maxBytes ?? FETCH_DEFAULTS.maxBytes;
  const maxRedirects = options.maxRedirects ?? FETCH_DEFAULTS.maxRedirects;
  const allow = new AllowList(options.testOnlyAllow);
  const deadline = AbortSignal.timeout(timeoutMs);
  const both = signal === undefined ? deadline : AbortSignal.any([signal, deadline]);
  let current = parseUrl(url);
  // An agent per fetch: no pooled connection outlives it, so each fetch checks its addresses anew.
  const agent = createSafeAgent(options);
  const redirects: string[] = [];
  const send = async (target: URL): Promise<Response> => {
    checkUrl(target, allow);
    return fetch(target, { dispatcher: agent, redirect: 'manual', signal: both, headers: { 'user-agent': USER_AGENT, accept: content.header } });
  };
  const fail = (err: unknown): never => {
    if (signal?.aborted === true) throw signal.reason;
    if (deadline.aborted) throw new KowalskiError('KW_ERR_FETCH_LIMIT', `${current.href}: the fetch took longer than ${timeoutMs} ms and was stopped`);
    throw viaRedirect(asFetchError(err, current.href), redirects);
  };
  try {
    for (;;) {
      const res = await send(current).catch(fail);
      if (REDIRECT_STATUSES.has(res.status)) {
        await res.body?.cancel();
        current = nextHop(res, current, redirects, maxRedirects);
        continue;
      }
      return await readResponse(res, current.href, redirects, maxBytes, content).catch(fail);
    }
  } finally {
    await agent.destroy();
  }
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

async function readResponse(res: Response, url: string, redirects: string[], maxBytes: number, content: AcceptedContent): Promise<FetchedBody> {
  if (!res.ok) {
    await res.body?.cancel();
    throw new KowalskiError('KW_ERR_FETCH_FAILED', `${url} answered HTTP ${res.status}${res.statusText === '' ? '' : ` ${res.statusText}`}`);
  }
  const header = res.headers.get('content-type') ?? '';
  const mime = header.split(';')[0]!.trim().toLowerCase();
  if (!content.accepts(mime)) {
    await res.body?.cancel();
    const what = mime === '' ? 'no Content-Type' : `content of type ${mime}`;
    throw new KowalskiError('KW_ERR_FETCH_BLOCKED', `${url} answered with ${what}; only ${content.described} are fetched`);
  }
  const body = await readBody(res, maxBytes, url);
  return { url, status: res.status, contentType: mime, contentTypeHeader: header, body, redirects: [...redirects] };
}
