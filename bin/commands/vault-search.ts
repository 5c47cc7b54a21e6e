/**
 * `vault search "…" [--semantic] [--limit N] [--under folder] [--json]` and `vault
 * reindex`: through the server that owns the data directory (GET /api/vault/search, POST
 * /api/vault/reindex), else on an embedded engine, which rescans the vault as it starts.
 * Both answer in the same SearchAnswer, so the printing does not depend on which it is.
 */
import { KowalskiError } from '../../core/index.js';
import { MAX_SEARCH_LIMIT } from '../../engine/index.js';
import type { SearchAnswer, SearchHit, SearchOptions } from '../../engine/index.js';
import type { Progress } from '../../contract/index.js';
import { openEngine } from './backend.js';
import { EXIT, dataDir } from './common.js';
import { progressLine } from './progress-line.js';
import { findServer } from './remote.js';

interface VaultSearchAccess {
  search(query: string, options: SearchOptions): Promise<SearchAnswer>;
  /** `onProgress` is heard only on an embedded engine (a server's reindex answers once, when done). */
  reindex(onProgress: Progress): Promise<{ notes: number; chunks: number }>;
}

async function withVaultSearch<T>(fn: (access: VaultSearchAccess) => Promise<T>): Promise<T> {
  const dir = dataDir();
  const lookup = await findServer(dir);
  if (lookup.kind === 'server') {
    const { api } = lookup;
    return fn({
      search(query, options) {
        const params = new URLSearchParams({ q: query });
        if (options.semantic === true) params.set('semantic', 'true');
        if (options.limit !== undefined) params.set('limit', String(options.limit));
        if (options.under !== undefined) params.set('under', options.under);
        return api.request<SearchAnswer>('GET', `api/vault/search?${params.toString()}`);
      },
      reindex: () => api.request('POST', 'api/vault/reindex', {}),
    });
  }
  const engine = await openEngine(dir, lookup);
  try {
    return await fn({ search: (query, options) => engine.vaultSearch.search(query, options), reindex: (onProgress) => engine.vaultSearch.reindex(onProgress) });
  } finally {
    await engine.close();
  }
}

function parseLimit(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!/^\d+$/.test(text) || n < 1 || n > MAX_SEARCH_LIMIT) throw new KowalskiError('KW_ERR_USAGE', `--limit takes a whole number from 1 to ${MAX_SEARCH_LIMIT}, not ${JSON.stringify(text)}`);
  return n;
}

function hitLines(hit: SearchHit, i: number): string {
  const heading = hit.heading === undefined ? '' : ` § ${hit.heading}`;
  return `${i + 1}. ${hit.title} — ${hit.path}${heading}  [${hit.found.join('+')}]\n   ${hit.snippet.replace(/\s+/g, ' ').trim()}`;
}

export async function vaultSearchCommand(query: string, opts: { semantic?: boolean; limit?: string; under?: string; json?: boolean }): Promise<number> {
  const limit = parseLimit(opts.limit);
  const options: SearchOptions = { semantic: opts.semantic === true, ...(limit === undefined ? {} : { limit }), ...(opts.under === undefined ? {} : { under: opts.under }) };
  const answer = await withVaultSearch((access) => access.search(query, options));
  if (opts.json === true) {
    process.stdout.write(`${JSON.stringify(answer)}\n`);
    return EXIT.ok;
  }
  const lines = answer.hits.length === 0 ? ['no notes found'] : answer.hits.map(hitLines);
  process.stdout.write(`${lines.join('\n')}\n`);
  if (answer.note !== undefined) process.stderr.write(`note: ${answer.note}\n`);
  return EXIT.ok;
}

export async function vaultReindexCommand(opts: { json?: boolean }): Promise<number> {
  const line = progressLine('reindex', { json: opts.json === true });
  let done;
  try {
    done = await withVaultSearch((access) => access.reindex(line.report));
  } finally {
    line.end();
  }
  if (opts.json === true) process.stdout.write(`${JSON.stringify(done)}\n`);
  else process.stdout.write(`reindexed ${done.notes} note(s)${done.chunks > 0 ? `, ${done.chunks} chunk(s) embedded` : ''}\n`);
  return EXIT.ok;
}
