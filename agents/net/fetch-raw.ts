/**
 * An HTTP exchange as a program wants it (status, headers, the body's bytes), under
 * web_fetch's address rules and limits: what a plugin's `kowalski.fetch` is carried out
 * with. Unlike `fetchPage`, any status and any content type are given back as they are.
 */
import { FETCH_DEFAULTS } from './fetch-page.js';
import type { SafeAgentOptions } from './safe-agent.js';
import { readBody, safeRequest } from './safe-request.js';
import type { SafeRequestInit } from './safe-request.js';

export interface FetchRawOptions extends SafeAgentOptions {
  /** The whole exchange, redirects and body included (default 20 000 ms). */
  timeoutMs?: number;
  /** Bytes of the body after decompression (default 5 MiB); more fails with KW_ERR_FETCH_LIMIT. */
  maxBytes?: number;
  /** Redirects followed (default 5). */
  maxRedirects?: number;
  /** Called with each URL of the chain before it is requested; throws to refuse it. */
  checkHop?: (url: URL) => void;
}

export interface RawResponse {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  /** Header names in lower case; repeated headers joined with `, `. */
  headers: Record<string, string>;
  body: Buffer;
  /** Each URL that answered with a redirect, in order. */
  redirects: string[];
}

export type { SafeRequestInit as RawRequest };

export async function fetchRaw(url: string, init: SafeRequestInit, options: FetchRawOptions = {}, signal?: AbortSignal): Promise<RawResponse> {
  const maxBytes = options.maxBytes ?? FETCH_DEFAULTS.maxBytes;
  const limits = { timeoutMs: options.timeoutMs ?? FETCH_DEFAULTS.timeoutMs, maxRedirects: options.maxRedirects ?? FETCH_DEFAULTS.maxRedirects };
  return safeRequest(url, init, { ...options, ...limits }, signal, async (res, final, redirects) => {
    const headers: Record<string, string> = {};
    res.headers.forEach((value, name) => { headers[name] = value; });
    const body = await readBody(res, maxBytes, final);
    return { url: final, status: res.status, headers, body, redirects: [...redirects] };
  });
}
