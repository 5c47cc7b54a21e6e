/**
 * Semantic search's vectors: `<data>/vectors.sqlite`, its own better-sqlite3 connection
 * with sqlite-vec loaded, kept apart from the event log (it can be deleted and rebuilt).
 * A `meta` table pins the embedding model and the dimension: vectors of two models are
 * never mixed, and a store pinned to another model is rebuilt only by `reset` (what
 * `kowalski vault reindex` does). Each note's chunks sit in `chunks`, their vectors in
 * the vec0 table `vec_chunks` under the chunk's id (cosine distance).
 */
import Database from 'better-sqlite3';
import type { Database as Db } from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { KowalskiError } from '../../../core/index.js';
import type { Chunk } from './chunks.js';

/** Bytes of the file mapped into memory (a brute-force KNN reads every vector). */
const MMAP_BYTES = 1024 * 1024 * 1024;
/** sqlite-vec answers at most this many neighbours per query. */
const MAX_K = 4096;

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
`;

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
      return new VectorStore(file, db);
    } catch (err) {
      db?.close();
      throw new KowalskiError('KW_ERR_STORE_CORRUPT', `the vector store ${file} cannot be opened (${(err as Error).message}); it holds only derived data: delete it and run \`kowalski vault reindex\``, { cause: err, where: { file } });
    }
  }

  #meta(key: string): string | undefined {
    return this.#db.prepare<[string], { value: string }>('SELECT value FROM meta WHERE key = ?').get(key)?.value;
  }

  #setMeta(key: string, value: string): void {
    this.#db.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(key, value);
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
      this.#db.exec('DROP TABLE IF EXISTS vec_chunks; DELETE FROM chunks; DELETE FROM notes; DELETE FROM meta;');
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
      this.#db.exec(`CREATE VIRTUAL TABLE vec_chunks USING vec0 (embedding float[${dimension}] distance_metric=cosine)`);
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
      const del = this.#db.prepare('DELETE FROM vec_chunks WHERE rowid = ?');
      for (const { id } of ids) del.run(BigInt(id));
    }
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
      const vec = this.#db.prepare('INSERT INTO vec_chunks (rowid, embedding) VALUES (?, ?)');
      for (const c of chunks) {
        const id = chunk.run(path, c.heading, c.text).lastInsertRowid;
        vec.run(BigInt(id), new Float32Array(c.vector));
      }
      this.#db.prepare('INSERT INTO notes (path, sha256) VALUES (?, ?)').run(path, sha256);
    })();
  }

  removeNote(path: string): void {
    this.#db.transaction(() => this.#deleteNote(path))();
  }

  /** The `k` chunks nearest to `vector`, nearest first; [] before any vector is stored. */
  nearest(vector: readonly number[], k: number): ChunkHit[] {
    const dimension = this.pin()?.dimension;
    if (dimension == null) return [];
    if (vector.length !== dimension) {
      throw new KowalskiError('KW_ERR_VAULT_REINDEX_NEEDED', `the query's vector has ${vector.length} numbers and the stored ones ${dimension}: the embedding model changed; run \`kowalski vault reindex\``);
    }
    return this.#db.prepare<[Float32Array, number], ChunkHit>(
      `SELECT c.path AS path, c.heading AS heading, c.text AS text, v.distance AS distance
       FROM (SELECT rowid, distance FROM vec_chunks WHERE embedding MATCH ? AND k = ?) v JOIN chunks c ON c.id = v.rowid
       ORDER BY v.distance`,
    ).all(new Float32Array(vector), Math.min(Math.max(1, k), MAX_K));
  }

  chunkCount(): number {
    return this.#db.prepare<[], { n: number }>('SELECT count(*) AS n FROM chunks').get()!.n;
  }

  close(): void {
    this.#db.close();
  }
}
