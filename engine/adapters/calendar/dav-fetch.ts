/**
 * The fetch tsdav makes its CalDAV requests with: a time limit per request and a bound on
 * each response body (read while it streams), so a slow or endless server cannot hang a
 * tool call or fill memory. The CalDAV server is the operator's own (often on this machine
 * or the local network, e.g. Radicale), so its address is not restricted.
 */
import { readBounded } from '../../../agents/index.js';
import { KowalskiError } from '../../../core/index.js';

export interface DavFetchOptions {
  /** Per request, ms (default 20 000). */
  timeoutMs?: number;
  /** Per response body, bytes (default 20 MiB). */
  maxBytes?: number;
  /** The tool call's signal: the request stops with it. */
  signal?: AbortSignal;
}

const NULL_BODY = new Set([101, 204, 205, 304]);

export function davFetch(options: DavFetchOptions = {}): typeof globalThis.fetch {
  const timeoutMs = options.timeoutMs ?? 20_000;
  const maxBytes = options.maxBytes ?? 20 * 1024 * 1024;
  return async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    const deadline = AbortSignal.timeout(timeoutMs);
    const signal = AbortSignal.any([deadline, ...(options.signal === undefined ? [] : [options.signal]), ...(init?.signal == null ? [] : [init.signal])]);
    try {
      const res = await fetch(input, { ...init, signal });
      const body = await readBounded(res.body, maxBytes);
      if (body === null) throw new KowalskiError('KW_ERR_CALENDAR_SOURCE', `CalDAV ${url}: the answer is larger than ${maxBytes} bytes; it was cut off`);
      return new Response(NULL_BODY.has(res.status) || res.body === null ? null : body, { status: res.status, statusText: res.statusText, headers: res.headers });
    } catch (err) {
      if (deadline.aborted) throw new KowalskiError('KW_ERR_CALENDAR_SOURCE', `CalDAV ${url}: no answer within ${timeoutMs} ms`, { cause: err });
      throw err;
    }
  };
}
