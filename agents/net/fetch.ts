/**
 * `fetchPage` and `fetchRaw`, loaded at their first call: undici, linkedom, Readability
 * and turndown take about half a second to load, which the CLI, the server's start and
 * every step that fetches nothing should not pay.
 */
import type { FetchedPage, FetchPageOptions } from './fetch-page.js';
import type { FetchRawOptions, RawRequest, RawResponse } from './fetch-raw.js';

export async function fetchPage(url: string, options: FetchPageOptions = {}, signal?: AbortSignal): Promise<FetchedPage> {
  const page = await import('./fetch-page.js');
  return page.fetchPage(url, options, signal);
}

export async function fetchRaw(url: string, init: RawRequest, options: FetchRawOptions = {}, signal?: AbortSignal): Promise<RawResponse> {
  const raw = await import('./fetch-raw.js');
  return raw.fetchRaw(url, init, options, signal);
}
