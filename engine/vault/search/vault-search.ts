/**
 * The vault's search, as the engine holds it (`engine.vaultSearch`) and the vault uses
 * it (`VaultIndex`): the keyword index kept level with the folder (a rescan at start, the
 * watch while the server runs, `noteChanged` for kowalski's own writes), and — when
 * `[vault.semantic]` is on — the vectors following it; `search` merges both sides by
 * reciprocal rank fusion and falls back to keyword results, with a note, whenever the
 * semantic side cannot answer.
 */
import fs from 'node:fs';
import type { Database as Db } from 'better-sqlite3';
import { KowalskiError, NO_PROGRESS, toPlainError, messageOf } from '../../../core/index.js';
import type { Progress } from '../../../contract/progress.js';
import type { ProviderSettings } from '../../../agents/index.js';
import type { Clock } from '../../base/clock.js';
import type { Timers } from '../../base/timers.js';
import type { SearchAnswer, SearchHit, SearchOptions, VaultIndex } from '../types.js';
import { KeywordIndex, queryTerms } from './keyword-index.js';
import type { KeywordHit } from './keyword-index.js';
import { folderPrefix } from './note-path.js';
import { noteSegments } from '../vault-paths.js';
import { refreshNote, rescanVault } from './rescan.js';
import type { RescanResult } from './rescan.js';
import { fuseRanks } from './rrf.js';
import { SemanticIndex } from './semantic-index.js';
import type { SemanticConfig, SemanticStatus } from './semantic-index.js';
import type { ChunkHit } from './vectors.js';
import { watchVault } from './vault-watch.js';
import type { VaultWatch } from './vault-watch.js';

export interface VaultSearchOptions {
  db: Db;
  /** The vault folder (`<data>/vault/`). */
  root: string;
  /** `<data>/vectors.sqlite`; opened only while semantic search is on. */
  vectorsFile: string;
  clock: Clock;
  timers: Timers;
  /** `[vault.semantic]` when switched on, else null. */
  semantic: SemanticConfig | null;
  /** The model providers' settings as they are now (read at each embedding). */
  providers(): ProviderSettings;
  /** Quiet time after an edit in the folder before it is indexed, ms (default 200). */
  debounceMs?: number;
  /** The longest an edit waits under a steady stream of writes, ms (default 2000). */
  maxWaitMs?: number;
  /** Told after each batch of notes the keyword index took in (paths relative to the vault). */
  onIndexed?(paths: string[]): void;
  onWarning?(message: string): void;
  /**
   * A vault several nodes write (a shared Postgres store): the notes written since the last
   * call, by any node (write-follower.ts). Indexed again before each search.
   */
  follow?(): string[];
}

export interface VaultSearchStatus {
  /** Notes in the keyword index. */
  notes: number;
  /** Whether the folder is watched (the server). */
  watching: boolean;
  semantic: SemanticStatus;
}

export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 100;
/** Characters of a chunk shown as a semantic hit's snippet. */
const CHUNK_SNIPPET_CHARS = 240;

const SEMANTIC_OFF: SemanticStatus = { enabled: false, model: null, vectorsModel: null, dimension: null, chunks: 0, pending: 0, reindexNeeded: false, lastError: null };

export interface VaultSearch extends VaultIndex {
  /** Bring the keyword index level with the folder (what changed while kowalski was stopped). */
  rescan(): RescanResult;
  /** Rescan, then watch the folder and embed changed notes in the background (the server calls this). */
  start(): Promise<RescanResult>;
  /** Read every note again; with semantic search on, drop every vector and embed every note with the configured model. */
  /** Read every note again, then (semantic search on) embed them all; `onProgress` hears phase `notes` (read, total unknown) then `embedded`. */
  reindex(onProgress?: Progress): Promise<{ notes: number; chunks: number }>;
  /** `[vault.semantic]` changed (a config reload). */
  configure(semantic: SemanticConfig | null): Promise<void>;
  status(): VaultSearchStatus;
  /** Resolves once the background embedding has nothing under way. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

function chunkSnippet(text: string): string {
  const flat = oneLine(text);
  return flat.length <= CHUNK_SNIPPET_CHARS ? flat : `${flat.slice(0, CHUNK_SNIPPET_CHARS - 1)}…`;
}

/** A snippet on one line: line breaks and runs of blanks become one space. */
function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function keywordHit(h: KeywordHit): SearchHit {
  return { path: h.path, title: h.title, snippet: oneLine(h.snippet), score: h.score, found: ['keyword'] };
}

export function createVaultSearch(options: VaultSearchOptions): VaultSearch {
  const { db, root, clock } = options;
  const keyword = new KeywordIndex(db);
  let semantic: SemanticIndex | undefined;
  let watch: VaultWatch | undefined;
  let started = false;
  let closed = false;
  const warn = (message: string): void => options.onWarning?.(message);

  const openSemantic = (config: SemanticConfig | null): SemanticIndex | undefined => {
    if (config === null) return undefined;
    try {
      return new SemanticIndex({ root, vectorsFile: options.vectorsFile, keyword, providers: options.providers }, config);
    } catch (err) {
      warn(`semantic search is off: ${messageOf(err)}`);
      return undefined;
    }
  };
  semantic = openSemantic(options.semantic);

  const changed = (paths: string[]): void => {
    if (paths.length === 0) return;
    for (const p of paths) semantic?.changed(p);
    options.onIndexed?.(paths);
  };

  const rescan = (): RescanResult => {
    const paths: string[] = [];
    const result = rescanVault(keyword, root, clock.now(), (p) => paths.push(p));
    if (result.truncated) warn(`the vault ${root} holds more notes than are indexed; the rest are not searched`);
    changed(paths);
    return result;
  };

  const refresh = (paths: readonly string[]): void => {
    const touched: string[] = [];
    keyword.batch(() => {
      for (const p of paths) refreshNote(keyword, root, p, clock.now(), (q) => touched.push(q));
    });
    changed(touched);
  };

  /** The semantic side's answer, or the note saying why there is none. */
  const semanticSide = async (query: string, k: number, prefix: string): Promise<{ hits: ChunkHit[] } | { note: string }> => {
    if (semantic === undefined) return { note: 'semantic search is off (switch it on in Setup): keyword results only' };
    try {
      const chunks = await semantic.nearest(query, k);
      return { hits: chunks.filter((c) => c.path.startsWith(prefix)) };
    } catch (err) {
      const plain = toPlainError(err);
      if (plain.code === 'KW_ERR_VAULT_REINDEX_NEEDED') return { note: `${plain.code}: ${plain.message}. Keyword results only.` };
      return { note: `semantic search failed (${plain.code}: ${plain.message}): keyword results only` };
    }
  };

  return {
    rescan,
    async start() {
      if (closed) throw new KowalskiError('KW_ERR_ENGINE_CLOSING', 'the vault search is closed');
      fs.mkdirSync(root, { recursive: true, mode: 0o700 });
      const result = rescan();
      if (started) return result;
      started = true;
      watch = await watchVault({
        root, clock, timers: options.timers,
        debounceMs: options.debounceMs ?? 200,
        maxWaitMs: options.maxWaitMs ?? 2000,
        onChanges: (paths, again) => {
          try {
            if (again) rescan();
            else refresh(paths);
          } catch (err) {
            warn(`indexing the vault: ${messageOf(err)}`);
          }
        },
        onError: (err) => warn(`watching the vault ${root}: ${err.message}`),
      });
      semantic?.startBackground();
      return result;
    },
    noteChanged(path) {
      refresh([noteSegments(path).join('/')]);
    },
    async search(query: string, opts: SearchOptions = {}): Promise<SearchAnswer> {
      const limit = Math.min(Math.max(1, Math.floor(opts.limit ?? DEFAULT_SEARCH_LIMIT)), MAX_SEARCH_LIMIT);
      const prefix = folderPrefix(opts.under ?? '');
      if (queryTerms(query).length === 0) return { query, mode: 'keyword', hits: [], note: 'the query has no words to search for' };
      if (options.follow !== undefined) {
        try {
          refresh(options.follow());
        } catch (err) {
          warn(`following the vault's writes: ${messageOf(err)}`);
        }
      }
      const wanted = opts.semantic === true || (opts.semantic === 'auto' && semantic !== undefined);
      const words = keyword.search(query, { limit: wanted ? limit * 2 : limit, prefix });
      if (!wanted) return { query, mode: 'keyword', hits: words.map(keywordHit) };
      const side = await semanticSide(query, limit * 5, prefix);
      if ('note' in side) return { query, mode: 'keyword', hits: words.slice(0, limit).map(keywordHit), note: side.note };
      // One entry per note: its nearest chunk (the list is nearest first); a note since removed is left out.
      const meanings: Array<ChunkHit & { title: string }> = [];
      const seen = new Set<string>();
      for (const c of side.hits) {
        const title = keyword.stamp(c.path)?.title;
        if (seen.has(c.path) || title === undefined) continue;
        seen.add(c.path);
        meanings.push({ ...c, title });
      }
      const fused = fuseRanks<KeywordHit | (ChunkHit & { title: string })>({ keyword: words, semantic: meanings }, (h) => h.path);
      const hits = fused.slice(0, limit).map((f): SearchHit => {
        const w = f.from.keyword as KeywordHit | undefined;
        const m = f.from.semantic as (ChunkHit & { title: string }) | undefined;
        const found: SearchHit['found'] = [];
        if (w !== undefined) found.push('keyword');
        if (m !== undefined) found.push('semantic');
        return {
          path: f.key,
          title: w?.title ?? m!.title,
          snippet: w === undefined ? chunkSnippet(m!.text) : oneLine(w.snippet),
          score: f.score,
          found,
          ...(m === undefined || m.heading === '' ? {} : { heading: m.heading }),
        };
      });
      return { query, mode: 'hybrid', hits };
    },
    async reindex(onProgress = NO_PROGRESS) {
      const paths: string[] = [];
      keyword.batch(() => keyword.clear());
      const result = rescanVault(keyword, root, clock.now(), (p) => {
        paths.push(p);
        onProgress({ phase: 'notes', done: paths.length, total: null, item: p });
      });
      options.onIndexed?.(paths);
      if (semantic === undefined) return { notes: result.notes, chunks: 0 };
      const { chunks } = await semantic.reindex(onProgress);
      return { notes: result.notes, chunks };
    },
    async configure(config) {
      if (config?.model === semantic?.model) return;
      // The new side answers at once; the old one stops its embedding and closes (its writes are refused once the pin moves).
      const old = semantic;
      semantic = openSemantic(config);
      if (started) semantic?.startBackground();
      await old?.close();
    },
    status: () => ({ notes: keyword.count(), watching: watch !== undefined, semantic: semantic?.status() ?? SEMANTIC_OFF }),
    idle: async () => semantic?.idle(),
    async close() {
      closed = true;
      await watch?.close();
      watch = undefined;
      await semantic?.close();
      semantic = undefined;
    },
  };
}
