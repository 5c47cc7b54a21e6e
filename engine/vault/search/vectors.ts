/**
 * Semantic search's vectors: `<data>/vectors.sqlite`, its own better-sqlite3 connection
 * with sqlite-vec loaded, kept apart from the event log (it can be deleted and rebuilt).
 * A `meta` table pins the embedding model and the dimension: vectors of two models are
 * never mixed, and a store pinned to another model is rebuilt only by `reset` (what
 * `kowalski vault reindex` does). Each note's chunks sit in `chunks`; under the chunk's
 * id, its float32 vector in `chunk_vectors` (a BLOB) and its sign bits in the vec0 table
 * `vec_bits` (`bit[dim]`, `vec_quantize_binary`), spread over `PARTITIONS` partitions.
 * A search is two-stage: a hamming KNN over the bits picks `OVERSAMPLE × k` candidates,
 * then only those are ranked by exact cosine distance (docs/vault-search.md).
 */
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { KowalskiError, messageOf } from '../../../core/index.js';
import type { Chunk } from './chunks.js';

/** Bytes of the file mapped into memory (the coarse KNN reads every chunk's bits). */
const MMAP_BYTES = 1024 * 1024 * 1024;
/** sqlite-vec answers at most this many neighbours per query. */
const MAX_K = 4096;
/** The store's layout, in `meta`; a store without it holds float vectors in `vec_chunks` and is converted at open. */
const LAYOUT = 'binary-rescore-1';
/**
 * Candidates the coarse stage hands to the exact one, per neighbour asked for (recall@10
 * 1.0 on clustered vectors at 8, bench/vault-search.ts).
 */
const OVERSAMPLE = 8;
/**
 * sqlite-vec 0.1.9 picks a KNN's top k in time ∝ k × rows, so one KNN for 400 candidates
 * costs ~60 ms over 100,000 chunks; a chunk's bits go to partition `id % PARTITIONS`
 * and each partition gives its own top `candidates / PARTITIONS` (~13 ms in all).
 */
const PARTITIONS = 16;

export interface Pin {
  /** `provider:model`. */
  model: string;
  /** Null until the first vector is stored. */
  dimension: number | null;
}

export interface ChunkHit {
  path: string;
  heading: string;
  text: string;
  /** Cosine distance: 0 is the same direction, 2 the opposite. */
  distance: number;
}

export interface EmbeddedChunk extends Chunk {
  vector: number[];
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS notes (path TEXT PRIMARY KEY, sha256 TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chunks (id INTEGER PRIMARY KEY, path TEXT NOT NULL, heading TEXT NOT NULL, text TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS chunks_path ON chunks (path);
CREATE TABLE IF NOT EXISTS chunk_vectors (id INTEGER PRIMARY KEY, vector BLOB NOT NULL);
`;

/** The two stages in one statement: each partition's hamming KNN, then cosine over the candidates' floats. */
const NEAREST_SQL = `
WITH candidates (id) AS (
  ${Array.from({ length: PARTITIONS }, (_, p) => `SELECT rowid FROM vec_bits WHERE bits MATCH vec_quantize_binary(@padded) AND k = @perPartition AND part = ${p}`).join('\n  UNION ALL ')}
), scored AS (
  SELECT v.id AS id, vec_distance_cosine(v.vector, @query) AS distance
  FROM candidates JOIN chunk_vectors v ON v.id = candidates.id ORDER BY distance LIMIT @k
)
SELECT c.path AS path, c.heading AS heading, c.text AS text, s.distance AS distance
FROM scored s JOIN chunks c ON c.id = s.id ORDER BY s.distance`;

/** Rows converted per statement when a store of the first layout is converted. */
const CONVERT_PAGE = 1000;

/** `vec_quantize_binary` takes a multiple of 8 numbers: pad with zeros (the same bits for every vector). */
function padded(vector: Float32Array): Float32Array {
  if (vector.length % 8 === 0) return vector;
  const out = new Float32Array(Math.ceil(vector.length / 8) * 8);
  out.set(vector);
  return out;
}

export class VectorStore {
  readonly #db: Db;
  readonly file: string;

  private constructor(file: string, db: Db) {
    this.file = file;
    this.#db = db;
  }

  /** Open (or create) the store; a file that is not one is KW_ERR_STORE_CORRUPT. */
  static open(file: string): VectorStore {
    let db: Db | undefined;
    try {
      db = new Database(file);
      sqliteVec.load(db);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = NORMAL'); // derived data: a lost commit is embedded again
      db.pragma('busy_timeout = 5000');
      // A KNN query reads every vector: from a mapped file, not through SQLite's small page cache.
      db.pragma(`mmap_size = ${MMAP_BYTES}`);
      db.exec(SCHEMA);
      const store = new VectorStore(file, db);
      store.#convertOldLayout();
      return store;
    } catch (err) {
      db?.close();
      throw new KowalskiError('KW_ERR_STORE_CORRUPT', `the vector store ${file} cannot be opened (${messageOf(err)}); it holds only derived data: delete it and run \`kowalski vault reindex\``, { cause: err, where: { file } });
    }
  }

  #meta(key: string): string | undefined {
    return this.#db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(key)?.value;
  }

  #setMeta(key: string, value: string): void {
    this.#db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
  }

  #createBits(dimension: number): void {
    this.#db.exec(`CREATE VIRTUAL TABLE vec_bits USING vec0 (part INTEGER PARTITION KEY, bits bit[${Math.ceil(dimension / 8) * 8}])`);
  }

  /** Stores a chunk's sign bits, in partition `id % PARTITIONS`. */
  #bitsWriter(): (id: bigint, vector: Float32Array) => void {
    const insert = this.#db.prepare('INSERT INTO vec_bits (rowid, part, bits) VALUES (?, ?, vec_quantize_binary(?))');
    return (id, vector) => insert.run(id, id % BigInt(PARTITIONS), padded(vector));
  }

  /**
   * A store of the first layout (float vectors in the vec0 table `vec_chunks`, no `layout`
   * in `meta`) is converted in place: its vectors are copied out and quantized, nothing is
   * embedded again.
   */
  #convertOldLayout(): void {
    if (this.#meta('layout') === LAYOUT) return;
    this.#db.transaction(() => {
      const dimension = this.pin()?.dimension;
      if (dimension != null) {
        this.#createBits(dimension);
        this.#db.exec('INSERT INTO chunk_vectors (id, vector) SELECT rowid, embedding FROM vec_chunks');
        const writeBits = this.#bitsWriter();
        const page = this.#db.prepare<[number], { id: number; vector: Buffer }>('SELECT id, vector FROM chunk_vectors WHERE id > ? ORDER BY id LIMIT ' + CONVERT_PAGE);
        for (let rows = page.all(0); rows.length > 0; rows = page.all(rows.at(-1)!.id)) {
          for (const r of rows) writeBits(BigInt(r.id), new Float32Array(new Uint8Array(r.vector).buffer));
        }
      }
      this.#db.exec('DROP TABLE IF EXISTS vec_chunks');
      this.#setMeta('layout', LAYOUT);
    })();
  }

  /** The model and dimension the vectors were made with; null for a store never pinned. */
  pin(): Pin | null {
    const model = this.#meta('model');
    if (model === undefined) return null;
    const dimension = this.#meta('dimension');
    return { model, dimension: dimension === undefined ? null : Number(dimension) };
  }

  /** Drop every vector and pin the store to `model` (its dimension comes with the first vector). */
  reset(model: string): void {
    this.#db.transaction(() => {
      this.#db.exec('DROP TABLE IF EXISTS vec_chunks; DROP TABLE IF EXISTS vec_bits; DELETE FROM chunk_vectors; DELETE FROM chunks; DELETE FROM notes; DELETE FROM meta;');
      this.#setMeta('layout', LAYOUT);
      this.#setMeta('model', model);
    })();
  }

  /** path → sha256 of every note whose vectors are stored (as of that sha256). */
  embeddedNotes(): Map<string, string> {
    const rows = this.#db.prepare<[], { path: string; sha256: string }>('SELECT path, sha256 FROM notes').all();
    return new Map(rows.map((r) => [r.path, r.sha256]));
  }

  #checkPin(model: string, vectors: readonly number[][]): void {
    const pin = this.pin();
    if (pin?.model !== model) {
      throw new KowalskiError('KW_ERR_VAULT_REINDEX_NEEDED', `the vector store ${this.file} holds vectors of ${pin?.model ?? 'no model'}, not ${model}: run \`kowalski vault reindex\``);
    }
    const first = vectors[0];
    if (first === undefined) return;
    let dimension = pin.dimension;
    if (dimension === null) {
      dimension = first.length;
      if (!Number.isInteger(dimension) || dimension < 1 || dimension > 8192) {
        throw new KowalskiError('KW_ERR_MODEL_BAD_RESPONSE', `${pin.model} sent a vector of ${dimension} numbers`);
      }
      this.#createBits(dimension);
      this.#setMeta('dimension', String(dimension));
    }
    const wrong = vectors.find((v) => v.length !== dimension);
    if (wrong !== undefined) {
      throw new KowalskiError('KW_ERR_MODEL_BAD_RESPONSE', `${pin.model} sent a vector of ${wrong.length} numbers; the store holds vectors of ${dimension}`);
    }
  }

  #deleteNote(path: string): void {
    const ids = this.#db.prepare<[string], { id: number }>('SELECT id FROM chunks WHERE path = ?').all(path);
    if (ids.length > 0 && this.pin()?.dimension != null) {
      const del = this.#db.prepare('DELETE FROM vec_bits WHERE rowid = ?');
      for (const { id } of ids) del.run(BigInt(id));
    }
    this.#db.prepare('DELETE FROM chunk_vectors WHERE id IN (SELECT id FROM chunks WHERE path = ?)').run(path);
    this.#db.prepare('DELETE FROM chunks WHERE path = ?').run(path);
    this.#db.prepare('DELETE FROM notes WHERE path = ?').run(path);
  }

  /**
   * Store a note's chunks and vectors (made by `model`) as of `sha256`, replacing what it
   * had (vec0 takes no upsert: delete, then insert). Refused when the store is pinned to
   * another model or the vectors have another dimension: two models are never mixed.
   */
  putNote(model: string, path: string, sha256: string, chunks: readonly EmbeddedChunk[]): void {
    this.#db.transaction(() => {
      this.#checkPin(model, chunks.map((c) => c.vector));
      this.#deleteNote(path);
      const chunk = this.#db.prepare('INSERT INTO chunks (path, heading, text) VALUES (?, ?, ?)');
      const floats = this.#db.prepare('INSERT INTO chunk_vectors (id, vector) VALUES (?, ?)');
      const writeBits = chunks.length > 0 ? this.#bitsWriter() : undefined;
      for (const c of chunks) {
        const id = BigInt(chunk.run(path, c.heading, c.text).lastInsertRowid);
        const vector = new Float32Array(c.vector);
        floats.run(id, vector);
        writeBits!(id, vector);
      }
      this.#db.prepare('INSERT INTO notes (path, sha256) VALUES (?, ?)').run(path, sha256);
    })();
  }

  removeNote(path: string): void {
    this.#db.transaction(() => this.#deleteNote(path))();
  }

  /**
   * The `k` chunks nearest to `vector` by cosine distance, nearest first; [] before any
   * vector is stored. Approximate: the exact distance ranks the `OVERSAMPLE × k` chunks
   * whose sign bits are nearest (hamming), each partition giving its share.
   */
  nearest(vector: readonly number[], k: number): ChunkHit[] {
    const dimension = this.pin()?.dimension;
    if (dimension == null) return [];
    if (vector.length !== dimension) {
      throw new KowalskiError('KW_ERR_VAULT_REINDEX_NEEDED', `the query's vector has ${vector.length} numbers and the stored ones ${dimension}: the embedding model changed; run \`kowalski vault reindex\``);
    }
    const wanted = Math.min(Math.max(1, k), MAX_K);
    const perPartition = Math.min(Math.ceil((wanted * OVERSAMPLE) / PARTITIONS), MAX_K);
    const query = new Float32Array(vector);
    return this.#db.prepare<[{ query: Float32Array; padded: Float32Array; perPartition: number; k: number }], ChunkHit>(NEAREST_SQL)
      .all({ query, padded: padded(query), perPartition, k: wanted });
  }

  chunkCount(): number {
    return this.#db.prepare<[], { n: number }>('SELECT count(*) AS n FROM chunks').get()!.n;
  }

  close(): void {
    this.#db.close();
  }
}
