/**
 * Fetch one page for a model, safely: http/https only, every URL of a redirect chain
 * checked before it is requested and again at connect time, a total time limit and a
 * limit on the DECODED body counted while it streams (a gzip bomb or an endless body
 * is cut off; Content-Length is never trusted), text kinds of content only.
 */
import type { Response } from 'undici';
import { KowalskiError } from '../../core/index.js';
import { htmlToMarkdown } from './html-to-markdown.js';
import type { SafeAgentOptions } from './safe-agent.js';
import { decodeBody } from './decode-body.js';
import { readBody, safeRequest } from './safe-request.js';

export interface FetchPageOptions extends SafeAgentOptions {
  /** The whole fetch, redirects and body included (default 20 000 ms). */
  timeoutMs?: number;
  /** Bytes of the body after decompression (default 5 MiB). */
  maxBytes?: number;
  /** Redirects followed (default 5); one more fails with KW_ERR_FETCH_LIMIT. */
  maxRedirects?: number;
}

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

export const FETCH_DEFAULTS = { timeoutMs: 20_000, maxBytes: 5 * 1024 * 1024, maxRedirects: 5 } as const;

const USER_AGENT = 'kowalski (web_fetch; +https://github.com/kowalski)';
const ACCEPT = 'text/html,application/xhtml+xml,text/markdown;q=0.9,text/plain;q=0.8,application/json;q=0.7';

type Kind = 'html' | 'text' | 'json';

function contentKind(mime: string): Kind | undefined {
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'html';
  if (mime === 'text/plain' || mime === 'text/markdown' || mime === 'text/x-markdown') return 'text';
  if (mime === 'application/json' || /^application\/[\w.-]+\+json$/.test(mime)) return 'json';
  return undefined;
}

/** The charset of the Content-Type header, else (for HTML) of a `<meta>` in the first KiB, else UTF-8. */
function decode(body: Buffer, contentType: string, kind: Kind): string {
  const inHeader = /;\s*charset\s*=/i.test(contentType);
  const meta = !inHeader && kind === 'html' ? /<meta[^>]+charset\s*=\s*["']?([\w.:-]+)/i.exec(body.subarray(0, 1024).toString('latin1'))?.[1] : undefined;
  return decodeBody({ body, contentTypeHeader: contentType }, meta);
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
  const maxBytes = options.maxBytes ?? FETCH_DEFAULTS.maxBytes;
  const request = { timeoutMs: options.timeoutMs ?? FETCH_DEFAULTS.timeoutMs, maxRedirects: options.maxRedirects ?? FETCH_DEFAULTS.maxRedirects };
  return safeRequest(url, { headers: { 'user-agent': USER_AGENT, accept: ACCEPT } }, { ...options, ...request }, signal, (res, final, redirects) => readPage(res, final, redirects, maxBytes));
}

async function readPage(res: Response, url: string, redirects: string[], maxBytes: number): Promise<FetchedPage> {
  if (!res.ok) {
    await res.body?.cancel();
    throw new KowalskiError('KW_ERR_FETCH_FAILED', `${url} answered HTTP ${res.status}${res.statusText === '' ? '' : ` ${res.statusText}`}`);
  }
  const header = res.headers.get('content-type') ?? '';
  const mime = header.split(';')[0]!.trim().toLowerCase();
  const kind = contentKind(mime);
  if (kind === undefined) {
    await res.body?.cancel();
    const what = mime === '' ? 'no Content-Type' : `content of type ${mime}`;
    throw new KowalskiError('KW_ERR_FETCH_BLOCKED', `${url} answered with ${what}; only HTML, plain text, Markdown and JSON pages are fetched`);
  }
  const body = await readBody(res, maxBytes, url);
  const { title, markdown } = toMarkdown(decode(body, header, kind), kind, url);
  return { url, status: res.status, contentType: mime, title, markdown, bytes: body.byteLength, redirects: [...redirects] };
}
