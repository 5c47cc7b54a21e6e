/**
 * `fetchPage` and `fetchBody`, loaded at their first call: undici, linkedom, Readability
 * and turndown take about half a second to load, which the CLI, the server's start and
 * every step that fetches nothing should not pay.
 */
import type { AcceptedContent, FetchBodyOptions, FetchedBody } from './fetch-body.js';
import type { FetchedPage, FetchPageOptions } from './fetch-page.js';

export async function fetchPage(url: string, options: FetchPageOptions = {}, signal?: AbortSignal): Promise<FetchedPage> {
  const page = await import('./fetch-page.js');
  return page.fetchPage(url, options, signal);
}

export async function fetchBody(url: string, content: AcceptedContent, options: FetchBodyOptions = {}, signal?: AbortSignal): Promise<FetchedBody> {
  const body = await import('./fetch-body.js');
  return body.fetchBody(url, content, options, signal);
}
