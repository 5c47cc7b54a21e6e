/**
 * web_search: ask the search engine configured in `[tools.web_search]` and give the model
 * a numbered Markdown list of results. The engine's address is the operator's own choice
 * (often SearXNG on localhost), so, unlike web_fetch, it is not put through the SSRF
 * filter: the model chooses only the query, never where it is sent.
 */
import { KowalskiError, messageOf } from '../../core/index.js';
import { readBounded } from '../net/read-bounded.js';
import type { Tool, ToolOutput } from '../types.js';
import type { WebSearchConfig } from './web-search-config.js';

export interface WebSearchOptions {
  /** Per search, from the request to the last byte of the answer (default 10 000 ms). */
  timeoutMs?: number;
}

interface Hit {
  title: string;
  url: string;
  snippet: string;
}

const DEFAULT_COUNT = 5;
/** An answer larger than this is not a search result page. */
const MAX_BODY_BYTES = 4 * 1024 * 1024;
const MAX_SNIPPET_CHARS = 400;

const UNCONFIGURED = `web_search has no search engine configured. Add one to config.toml:
[tools.web_search]
provider = "searxng"
url = "http://127.0.0.1:8888"     # your SearXNG instance, with format json enabled
or
[tools.web_search]
provider = "brave"
api_key_env = "BRAVE_KEY"          # the variable holding the key (or set BRAVE_API_KEY)
or
[tools.web_search]
provider = "staan"
api_key_env = "STAAN_KEY"          # the variable holding the key (or set STAAN_API_KEY)
market = "en-us"                   # the index's language and country`;

const ENGINE_NAMES = { searxng: 'SearXNG', brave: 'Brave Search', staan: 'Staan' } as const;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'", '#x27': "'" };

/** Engines put <strong> and entities in titles and snippets; the model wants plain text. */
function plain(v: unknown, max = Infinity): string {
  const text = (typeof v === 'string' ? v : '')
    .replace(/<[^>]*>/g, '')
    .replace(/&(#?\w+);/g, (m, name: string) => ENTITIES[name.toLowerCase()] ?? m)
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function request(config: WebSearchConfig, query: string, count: number): { url: string; headers: Record<string, string> } {
  switch (config.provider) {
    case 'searxng':
      return { url: `${config.url}/search?${new URLSearchParams({ q: query, format: 'json' })}`, headers: { accept: 'application/json' } };
    case 'brave':
      return {
        url: `${config.url}?${new URLSearchParams({ q: query, count: String(count) })}`,
        headers: { accept: 'application/json', 'x-subscription-token': config.apiKey },
      };
    case 'staan':
      // Staan's page is always ten results (another `count` is refused with HTTP 400): the list is cut here.
      return {
        url: `${config.url}?${new URLSearchParams({ q: query, market: config.market })}`,
        headers: { accept: 'application/json', authorization: `Bearer ${config.apiKey}` },
      };
  }
}

const SNIPPET_FIELD = {
  searxng: (r: Record<string, unknown>) => r.content,
  brave: (r: Record<string, unknown>) => r.description,
  staan: (r: Record<string, unknown>) => r.snippet,
} as const;

function hits(config: WebSearchConfig, body: unknown): Hit[] | null {
  const o = body as { results?: unknown; web?: { results?: unknown } } | null;
  // Brave and Staan answer `{web: {results}}`; Brave leaves out `web` altogether when nothing matched.
  const list = config.provider === 'searxng' ? o?.results : o?.web === undefined ? [] : o.web.results;
  if (!Array.isArray(list)) return null;
  return list
    .filter((r): r is Record<string, unknown> => typeof r === 'object' && r !== null && typeof r.url === 'string')
    .map((r) => ({
      title: plain(r.title) || String(r.url),
      url: String(r.url),
      snippet: plain(SNIPPET_FIELD[config.provider](r), MAX_SNIPPET_CHARS),
    }));
}

/** What a failing status most likely means, for the operator reading the trace. */
function hint(config: WebSearchConfig, status: number): string {
  if (config.provider === 'searxng' && status === 403) return ' (is "json" in search.formats of its settings.yml?)';
  if (config.provider !== 'searxng' && (status === 401 || status === 403 || status === 422)) {
    return ` (the API key was refused; check api_key_env, ${config.provider === 'brave' ? 'BRAVE_API_KEY' : 'STAAN_API_KEY'} or api_key)`;
  }
  if (config.provider === 'staan' && status === 400) return ` (is market "${config.market}" one Staan serves?)`;
  if (status === 429) return ' (rate limited; try again later)';
  return '';
}

async function search(config: WebSearchConfig, query: string, count: number, timeoutMs: number, outer: AbortSignal): Promise<Hit[]> {
  const engine = `${ENGINE_NAMES[config.provider]} at ${new URL(config.url).origin}`;
  const failed = (why: string, cause?: unknown): KowalskiError =>
    new KowalskiError('KW_ERR_SEARCH_FAILED', `web_search: ${engine} ${why}`, cause === undefined ? {} : { cause });
  const { url, headers } = request(config, query, count);
  // Held here and read after the fetch: a timeout signal only reachable through AbortSignal.any can be
  // garbage-collected before it fires on Node 20 (nodejs/node#57736), and the call then hangs until undici's own limit.
  const deadline = AbortSignal.timeout(timeoutMs);
  const signal = AbortSignal.any([outer, deadline]);
  let answer: Buffer | null;
  let status: number;
  try {
    const res = await fetch(url, { headers, signal });
    status = res.status;
    answer = await readBounded(res.body, MAX_BODY_BYTES);
  } catch (err) {
    if (outer.aborted) throw outer.reason;
    if (deadline.aborted) throw failed(`did not answer within ${timeoutMs / 1000} s`, err);
    const code = ((err as { cause?: { code?: unknown } }).cause?.code ?? messageOf(err)) as string;
    throw failed(`cannot be reached (${code})`, err);
  }
  if (status < 200 || status > 299) throw failed(`answered HTTP ${status}${hint(config, status)}`);
  if (answer === null) throw failed(`answered more than ${MAX_BODY_BYTES} bytes`);
  let body: unknown;
  try {
    body = JSON.parse(answer.toString('utf8'));
  } catch (err) {
    throw failed(`answered HTTP ${status} with something that is not JSON`, err);
  }
  const found = hits(config, body);
  if (found === null) throw failed(`answered HTTP ${status} with JSON that holds no result list`);
  return found.slice(0, count);
}

function render(query: string, engine: string, found: Hit[]): string {
  if (found.length === 0) return `No results for ${JSON.stringify(query)} (${engine}).`;
  const items = found.map((h, i) => [`${i + 1}. ${h.title}`, `   ${h.url}`, ...(h.snippet === '' ? [] : [`   ${h.snippet}`])].join('\n'));
  return [`Results for ${JSON.stringify(query)} (${engine}):`, '', ...items].join('\n');
}

/** The tool exists even with no engine configured, so a model sees it and the operator sees why it fails. */
export function createWebSearchTool(config: WebSearchConfig | null, options: WebSearchOptions = {}): Tool {
  const timeoutMs = options.timeoutMs ?? 10_000;
  return {
    idempotent: true,
    spec: {
      name: 'web_search',
      description: 'Search the web. Returns a numbered list of results, each with its title, URL and a snippet; fetch a page for more.',
      inputSchema: {
        type: 'object',
        properties: {
          query: { type: 'string', minLength: 1, description: 'What to search for, as you would type it into a search engine' },
          count: { type: 'integer', minimum: 1, maximum: 10, description: `Results wanted (default ${DEFAULT_COUNT})` },
        },
        required: ['query'],
        additionalProperties: false,
      },
    },
    async call(args, ctx): Promise<ToolOutput> {
      if (config === null) throw new KowalskiError('KW_ERR_SEARCH_UNCONFIGURED', UNCONFIGURED);
      const query = String(args.query);
      const count = Math.min(10, Math.max(1, typeof args.count === 'number' ? Math.trunc(args.count) : DEFAULT_COUNT));
      const found = await search(config, query, count, timeoutMs, ctx.signal);
      return {
        content: render(query, ENGINE_NAMES[config.provider], found),
        meta: { engine: config.provider, results: found.length, urls: found.map((h) => h.url) },
      };
    },
  };
}
