/**
 * Fetch one page for a model, safely (through fetch-body.ts: the address policy at every
 * hop and at connect time, time and decoded-size limits), text kinds of content only,
 * and turn it into Markdown.
 */
import { decodeBody } from './decode-body.js';
import { fetchBody } from './fetch-body.js';
import type { AcceptedContent, FetchBodyOptions, FetchedBody } from './fetch-body.js';
import { htmlToMarkdown } from './html-to-markdown.js';

export type FetchPageOptions = FetchBodyOptions;

export interface FetchedPage {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  /** The media type, without parameters (`text/html`). */
  contentType: string;
  /** '' when the page has none. */
  title: string;
  markdown: string;
  /** Decoded body bytes read. */
  bytes: number;
  /** Each URL that answered with a redirect, in order (the first is the one asked for). */
  redirects: string[];
}

export { FETCH_DEFAULTS } from './fetch-body.js';

const PAGES: AcceptedContent = {
  header: 'text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8,application/json;q=0.7',
  accepts: (mime) => contentKind(mime) !== undefined,
  described: 'HTML, plain text, Markdown and JSON pages',
};

type Kind = 'html' | 'text' | 'json';

function contentKind(mime: string): Kind | undefined {
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'html';
  if (mime === 'text/plain' || mime === 'text/markdown' || mime === 'text/x-markdown') return 'text';
  if (mime === 'application/json' || /^application\/[\w.-]+\+json$/.test(mime)) return 'json';
  return undefined;
}

/** The charset of the Content-Type header, else (for HTML) of a `<meta>` in the first KiB, else UTF-8. */
function decode(fetched: FetchedBody, kind: Kind): string {
  const header = /;\s*charset\s*=/i.test(fetched.contentTypeHeader);
  const meta = !header && kind === 'html' ? /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(fetched.body.subarray(0, 1024).toString('latin1'))?.[1] : undefined;
  return decodeBody(fetched, meta);
}

/** A fence longer than any run of backticks in the text, so nothing inside can close it. */
function fenced(text: string, info: string): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${info}\n${text.replace(/\n$/, '')}\n${fence}`;
}

function toMarkdown(text: string, kind: Kind, url: string): { title: string; markdown: string } {
  switch (kind) {
    case 'html': return htmlToMarkdown(text, url);
    case 'text': return { title: '', markdown: text };
    case 'json': return { title: '', markdown: fenced(text, 'json') };
  }
}

/**
 * Fetch `url` and return its main content as Markdown. Rejects with KW_ERR_FETCH_BLOCKED
 * (scheme, address, content type), KW_ERR_FETCH_LIMIT (size, time, redirects) or
 * KW_ERR_FETCH_FAILED (DNS, connection, HTTP error status); with `signal`'s reason when
 * `signal` aborts.
 */
export async function fetchPage(url: string, options: FetchPageOptions = {}, signal?: AbortSignal): Promise<FetchedPage> {
  const fetched = await fetchBody(url, PAGES, options, signal);
  const kind = contentKind(fetched.contentType)!;
  const { title, markdown } = toMarkdown(decode(fetched, kind), kind, fetched.url);
  return { url: fetched.url, status: fetched.status, contentType: fetched.contentType, title, markdown, bytes: fetched.body.byteLength, redirects: fetched.redirects };
}
