/**
 * web_fetch: one public web page as Markdown for the model. The URL is the model's
 * choice, so everything goes through fetchPage's SSRF policy: public addresses only,
 * every redirect re-checked at connect time, size and time limits.
 */
import { fetchPage } from '../net/fetch.js';
import type { FetchPageOptions } from '../net/fetch-page.js';
import type { Tool } from '../types.js';

export interface WebFetchOptions extends FetchPageOptions {
  /** Characters of Markdown given to the model when the call names no max_chars (default 20 000). */
  defaultMaxChars?: number;
}

export const DEFAULT_WEB_FETCH_CHARS = 20_000;

export function createWebFetchTool(options: WebFetchOptions = {}): Tool {
  const { defaultMaxChars = DEFAULT_WEB_FETCH_CHARS, ...fetchOptions } = options;
  return {
    idempotent: true,
    spec: {
      name: 'web_fetch',
      description: 'Fetch a public web page (http or https) and return its main content as Markdown, with absolute links. ' +
        'Only HTML, plain text, Markdown and JSON pages; private and local addresses are refused. ' +
        `The text is cut at max_chars characters (default ${defaultMaxChars}), with a note when it is.`,
      inputSchema: {
        type: 'object',
        properties: {
          url: { type: 'string', description: 'The page, e.g. "https://example.com/report"' },
          max_chars: { type: 'integer', minimum: 1, description: `Characters of Markdown to return (default ${defaultMaxChars})` },
        },
        required: ['url'],
        additionalProperties: false,
      },
    },
    async call(args, ctx) {
      const maxChars = typeof args.max_chars === 'number' ? args.max_chars : defaultMaxChars;
      const page = await fetchPage(String(args.url), fetchOptions, ctx.signal);
      const truncated = page.markdown.length > maxChars;
      const head = [`URL: ${page.url}`];
      if (page.title !== '') head.push(`Title: ${page.title}`);
      const parts = [head.join('\n'), '', truncated ? page.markdown.slice(0, maxChars) : page.markdown];
      if (truncated) {
        parts.push('', `[truncated: showing the first ${maxChars} of ${page.markdown.length} characters; call again with a larger max_chars to read more]`);
      }
      return {
        content: parts.join('\n'),
        meta: { url: page.url, status: page.status, contentType: page.contentType, bytes: page.bytes, redirects: page.redirects, truncated },
      };
    },
  };
}
