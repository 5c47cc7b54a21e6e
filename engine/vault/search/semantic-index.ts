/**
 * The semantic side of the vault's search: keeps `<data>/vectors.sqlite` following the
 * keyword index (each changed note re-chunked and embedded in the background, in batches;
 * a failure is recorded and the notes stay pending until the next change or reindex,
 * never holding up keyword indexing), answers nearest-chunk queries, and refuses to mix
 * models: a store pinned to another model than config.toml names waits for `reindex()`.
 */
import { KowalskiError, NO_PROGRESS, toPlainError, messageOf } from '../../../core/index.js';
import type { Progress } from '../../../contract/progress.js';
import { parseModelRef } from '../../../agents/index.js';
import type { ProviderSettings } from '../../../agents/index.js';
import { chunksOf } from './chunks.js';
import type { Embedder } from './embedder.js';
import { createEmbedder } from './embedder.js';
import type { KeywordIndex } from './keyword-index.js';
import { readNote } from './rescan.js';
import { VectorStore } from './vectors.js';
import type { ChunkHit, EmbeddedChunk } from './vectors.js';

/** `[vault.semantic]` when it is switched on. */
export interface SemanticConfig {
  /** `provider:model`, e.g. `ollama:nomic-embed-text`. */
  model: string;
}

export interface SemanticStatus {
  enabled: boolean;
  /** The model config.toml names. */
  model: string | null;
  /** The model the stored vectors were made with (null: none yet). */
  vectorsModel: string | null;
  dimension: number | null;
  chunks: number;
  /** Notes whose vectors are not current yet. */
  pending: number;
  /** The stored vectors are of another model: semantic search waits for `kowalski vault reindex`. */
  reindexNeeded: boolean;
  /** The last embedding failure (cleared by the next success). */
  lastError: { code: string; message: string } | null;
}

export interface SemanticDeps {
  root: string;
  vectorsFile: string;
  keyword: KeywordIndex;
  providers(): ProviderSettings;
}

/** Texts sent together when embedding changed notes in the background. */
const BACKGROUND_TEXTS = 64;
/** A query waits this long for its vector at most (ms), and is not retried: keyword results come back instead. */
const QUERY_TIMEOUT_MS = 15_000;

function reindexNeeded(vectorsModel: string, model: string): KowalskiError {
  return new KowalskiError('KW_ERR_VAULT_REINDEX_NEEDED', `the vault's vectors were made with ${vectorsModel} and config.toml names ${model}: run \`kowalski vault reindex\` to embed every note again with ${model}`);
}

export class SemanticIndex {
  readonly #deps: SemanticDeps;
  readonly #config: SemanticConfig;
  readonly #store: VectorStore;
  readonly #pending = new Set<string>();
  #embedders: { settings: ProviderSettings; background: Embedder; query: Embedder } | undefined;
  #background = false;
  #pump: Promise<void> | undefined;
  #abort: AbortController | undefined;
  #lastError: { code: string; message: string } | null = null;
  #closed = false;

  constructor(deps: SemanticDeps, config: SemanticConfig) {
    parseModelRef(config.model); // checked by the config already; a bad one must not open the store
    this.#deps = deps;
    this.#config = config;
    this.#store = VectorStore.open(deps.vectorsFile);
    // A store never pinned (new, or emptied by hand) takes the configured model.
    if (this.#store.pin() === null) this.#store.reset(config.model);
  }

  get model(): string {
    return this.#config.model;
  }

  /** Why semantic search cannot answer now (the pin), else undefined. */
  unavailable(): KowalskiError | undefined {
    const pin = this.#store.pin();
    return pin !== null && pin.model !== this.#config.model ? reindexNeeded(pin.model, this.#config.model) : undefined;
  }

  async #embedder(kind: 'background' | 'query'): Promise<Embedder> {
    const settings = this.#deps.providers();
    if (this.#embedders?.settings !== settings) {
      const ref = parseModelRef(this.#config.model);
      const timeoutMs = Math.min(settings.timeoutMs, QUERY_TIMEOUT_MS);
      this.#embedders = { settings, background: await createEmbedder(ref, settings), query: await createEmbedder(ref, { ...settings, maxRetries: 0, timeoutMs }) };
    }
    return this.#embedders[kind];
  }

  /** A note changed in the keyword index: its vectors follow (in the background once `startBackground` ran). */
  changed(path: string): void {
    this.#pending.add(path);
    this.#kick();
  }

  /** Every note whose vectors are missing, stale or left over, marked pending; then embed in the background from now on. */
  startBackground(): void {
    this.#background = true;
    this.#syncPending();
    this.#kick();
  }

  #syncPending(): void {
    const embedded = this.#store.embeddedNotes();
    for (const [path, stamp] of this.#deps.keyword.stamps()) {
      if (embedded.get(path) !== stamp.sha256) this.#pending.add(path);
      embedded.delete(path);
    }
    for (const path of embedded.keys()) this.#pending.add(path);
  }

  #kick(): void {
    if (!this.#background || this.#closed || this.#pump !== undefined || this.#pending.size === 0 || this.unavailable() !== undefined) return;
    const abort = new AbortController();
    this.#abort = abort;
    this.#pump = this.#drain(abort.signal)
      .catch((err: unknown) => {
        if (!abort.signal.aborted) this.#lastError = { code: toPlainError(err).code, message: messageOf(err) };
      })
      .finally(() => {
        this.#pump = undefined;
        this.#abort = undefined;
      });
  }

  /** Embed pending notes until none is left; a failure leaves the batch pending and rejects. */
  async #drain(signal: AbortSignal, onBatch: (left: number) => void = () => undefined): Promise<void> {
    while (this.#pending.size > 0 && !signal.aborted) {
      const batch: Array<{ path: string; sha256: string; chunks: EmbeddedChunk[] }> = [];
      const texts: string[] = [];
      const done: string[] = [];
      const embedded = this.#store.embeddedNotes();
      for (const path of this.#pending) {
        if (texts.length >= BACKGROUND_TEXTS) break;
        done.push(path);
        const note = readNote(this.#deps.root, path);
        const title = this.#deps.keyword.stamp(path)?.title;
        if (note === undefined || title === undefined) {
          this.#store.removeNote(path);
          continue;
        }
        if (embedded.get(path) === note.sha256) continue;
        const chunks = chunksOf(note.body).map((c) => ({ ...c, vector: [] as number[] }));
        for (const c of chunks) texts.push(`${title}\n${c.heading === '' ? '' : `${c.heading}\n`}\n${c.text}`);
        batch.push({ path, sha256: note.sha256, chunks });
      }
      if (texts.length > 0) {
        const vectors = await (await this.#embedder('background')).embed(texts, signal);
        let i = 0;
        for (const note of batch) for (const c of note.chunks) c.vector = vectors[i++]!;
      }
      for (const note of batch) this.#store.putNote(this.#config.model, note.path, note.sha256, note.chunks);
      for (const path of done) this.#pending.delete(path);
      this.#lastError = null;
      onBatch(this.#pending.size);
    }
  }

  async #stopPump(): Promise<void> {
    this.#abort?.abort(new KowalskiError('KW_ERR_ENGINE_CLOSING', 'embedding stopped'));
    await this.#pump;
  }

  /** Drop every vector, pin the store to the configured model and embed every note; rejects with the embedding error. */
  /** `onProgress` is told of the notes embedded so far (phase `embedded`: 0 at the start, then after each batch); default none. */
  async reindex(onProgress: Progress = NO_PROGRESS): Promise<{ notes: number; chunks: number }> {
    await this.#stopPump();
    this.#store.reset(this.#config.model);
    this.#pending.clear();
    for (const path of this.#deps.keyword.stamps().keys()) this.#pending.add(path);
    const abort = new AbortController();
    this.#abort = abort;
    const total = this.#pending.size;
    onProgress({ phase: 'embedded', done: 0, total });
    const run = this.#drain(abort.signal, (left) => onProgress({ phase: 'embedded', done: total - left, total }));
    this.#pump = run.catch(() => undefined).finally(() => {
      this.#pump = undefined;
      this.#abort = undefined;
    });
    try {
      await run;
    } catch (err) {
      this.#lastError = { code: toPlainError(err).code, message: messageOf(err) };
      throw err;
    }
    return { notes: this.#store.embeddedNotes().size, chunks: this.#store.chunkCount() };
  }

  /** The chunks nearest to the query's meaning; rejects when the model cannot be reached or the store waits for a reindex. */
  async nearest(query: string, k: number): Promise<ChunkHit[]> {
    const refused = this.unavailable();
    if (refused !== undefined) throw refused;
    const [vector] = await (await this.#embedder('query')).embed([query]);
    if (vector === undefined) throw new KowalskiError('KW_ERR_MODEL_BAD_RESPONSE', `${this.#config.model} sent no vector for the query`);
    return this.#store.nearest(vector, k);
  }

  status(): SemanticStatus {
    const pin = this.#store.pin();
    return {
      enabled: true,
      model: this.#config.model,
      vectorsModel: pin?.model ?? null,
      dimension: pin?.dimension ?? null,
      chunks: this.#store.chunkCount(),
      pending: this.#pending.size,
      reindexNeeded: this.unavailable() !== undefined,
      lastError: this.#lastError,
    };
  }

  /** Resolves once nothing is being embedded (tests and `reindex` wait on it). */
  async idle(): Promise<void> {
    await this.#pump;
  }

  async close(): Promise<void> {
    this.#closed = true;
    await this.#stopPump();
    this.#store.close();
  }
}
