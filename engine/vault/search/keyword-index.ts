/**
 * The vault's keyword index: `vault_notes` (what is known of each note: size, mtime,
 * sha256, title) and `vault_fts` (FTS5 over title and body) in the engine's database,
 * migration 7. A user's query is never handed to FTS5 as syntax: it is cut into words,
 * each quoted, so no query can fail with an FTS5 syntax error.
 */
import type { Database } from 'better-sqlite3';
import { ftsQuery } from '../../store/sql/fts-query.js';
import { vaultIndexQueries } from '../../store/sql/vault-index.js';
import type { VaultIndexQueries } from '../../store/sql/vault-index.js';

/** What the index keeps of a note besides its text. */
export interface NoteStamp {
  sizeBytes: number;
  mtimeMs: number;
  sha256: string;
}

export interface IndexedNote extends NoteStamp {
  path: string;
  title: string;
  body: string;
}

export interface KeywordHit {
  path: string;
  title: string;
  snippet: string;
  /** -bm25: higher is better. */
  score: number;
}

/** Words of a query that are searched; the rest are ignored. */
const MAX_TERMS = 32;

/** The words of a query (letters, digits and combining marks, as the unicode61 tokenizer sees them), at most MAX_TERMS. */
export function queryTerms(text: string): string[] {
  return (text.normalize('NFC').match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).slice(0, MAX_TERMS);
}

export class KeywordIndex {
  readonly #db: Database;
  readonly #q: VaultIndexQueries;

  constructor(db: Database) {
    this.#db = db;
    this.#q = vaultIndexQueries(db);
  }

  /** Index a note (new or changed), replacing what was there; `at` stamps `indexed_at`. */
  put(note: IndexedNote, at: number): void {
    let id = this.#q.noteId(note.path);
    if (id === undefined) {
      id = this.#q.insertNote(note.path, note.sizeBytes, note.mtimeMs, note.sha256, note.title, at);
    } else {
      this.#q.updateNote(id, note.sizeBytes, note.mtimeMs, note.sha256, note.title, at);
      this.#q.deleteText(id);
    }
    this.#q.insertText(id, note.path, note.title, note.body);
  }

  /** The note is unchanged (same sha256) but its size or mtime moved: remember them, so the next rescan does not read it again. */
  touch(path: string, stamp: Pick<NoteStamp, 'sizeBytes' | 'mtimeMs'>): void {
    this.#q.touchNote(path, stamp.sizeBytes, stamp.mtimeMs);
  }

  /** Forget a note; false when it was not indexed. */
  remove(path: string): boolean {
    const id = this.#q.noteId(path);
    if (id === undefined) return false;
    this.#q.deleteText(id);
    this.#q.deleteNote(id);
    return true;
  }

  /** Run `fn` in one transaction (a rescan's many writes commit once). */
  batch<T>(fn: () => T): T {
    return this.#db.transaction(fn)();
  }

  /** What is known of one note; undefined when it is not indexed. */
  stamp(path: string): (NoteStamp & { title: string }) | undefined {
    const r = this.#q.stamp(path);
    return r === undefined ? undefined : { sizeBytes: r.size_bytes, mtimeMs: r.mtime_ms, sha256: r.sha256, title: r.title };
  }

  /** Forget every note (a reindex reads them all again). */
  clear(): void {
    this.#q.clear();
  }

  /** What is known of every indexed note, by path. */
  stamps(): Map<string, NoteStamp> {
    const out = new Map<string, NoteStamp>();
    for (const r of this.#q.stamps()) out.set(r.path, { sizeBytes: r.size_bytes, mtimeMs: r.mtime_ms, sha256: r.sha256 });
    return out;
  }

  count(): number {
    return this.#q.count();
  }

  /**
   * The best notes for the query's words, best first: notes with every word; when none
   * has all of them, notes with any. `prefix` keeps notes whose path starts with it.
   */
  search(text: string, options: { limit: number; prefix: string }): KeywordHit[] {
    const terms = queryTerms(text);
    if (terms.length === 0) return [];
    let rows = this.#q.search(ftsQuery(terms, 'AND'), options.prefix, options.limit);
    if (rows.length === 0 && terms.length > 1) rows = this.#q.search(ftsQuery(terms, 'OR'), options.prefix, options.limit);
    return rows.map((r) => ({ path: r.path, title: r.title, snippet: r.snippet, score: -r.rank }));
  }
}
