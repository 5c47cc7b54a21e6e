/**
 * The vault's keyword index: `vault_notes` (what is known of each note: size, mtime,
 * sha256, title) and `vault_fts` (FTS5 over title and body) in the engine's database,
 * migration 7. A user's query is never handed to FTS5 as syntax: it is cut into words,
 * each quoted, so no query can fail with an FTS5 syntax error.
 */
import type { Database as Db, Statement } from 'better-sqlite3';

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

/** Title matches weigh this much more than body matches (bm25 column weights). */
const TITLE_WEIGHT = 10;
/** Words of a query that are searched; the rest are ignored. */
const MAX_TERMS = 32;
/** Tokens per snippet (FTS5's limit is 64). */
const SNIPPET_TOKENS = 16;

/** The words of a query (letters, digits and combining marks, as the unicode61 tokenizer sees them), at most MAX_TERMS. */
export function queryTerms(text: string): string[] {
  return (text.normalize('NFC').match(/[\p{L}\p{N}\p{M}]+/gu) ?? []).slice(0, MAX_TERMS);
}

/** An FTS5 MATCH expression of quoted terms: all of them (`AND`), or any (`OR`). */
export function ftsQuery(terms: readonly string[], join: 'AND' | 'OR'): string {
  return terms.map((t) => `"${t.replace(/"/g, '""')}"`).join(` ${join} `);
}

interface Row {
  path: string;
  title: string;
  snippet: string;
  rank: number;
}

export class KeywordIndex {
  readonly #db: Db;
  readonly #find: Statement<[string], { id: number }>;
  readonly #stamp: Statement<[string], { size_bytes: number; mtime_ms: number; sha256: string; title: string }>;
  readonly #insertNote: Statement<[string, number, number, string, string, number]>;
  readonly #updateNote: Statement<[number, number, string, string, number, number]>;
  readonly #touchNote: Statement<[number, number, string]>;
  readonly #deleteNote: Statement<[number]>;
  readonly #deleteFts: Statement<[number]>;
  readonly #insertFts: Statement<[number, string, string, string]>;
  readonly #search: Statement<[{ match: string; prefix: string; limit: number }], Row>;
  readonly #stamps: Statement<[], { path: string; size_bytes: number; mtime_ms: number; sha256: string }>;
  readonly #count: Statement<[], { n: number }>;

  constructor(db: Db) {
    this.#db = db;
    this.#find = db.prepare('SELECT id FROM vault_notes WHERE path = ?');
    this.#stamp = db.prepare('SELECT size_bytes, mtime_ms, sha256, title FROM vault_notes WHERE path = ?');
    this.#insertNote = db.prepare('INSERT INTO vault_notes (path, size_bytes, mtime_ms, sha256, title, indexed_at) VALUES (?, ?, ?, ?, ?, ?)');
    this.#updateNote = db.prepare('UPDATE vault_notes SET size_bytes = ?, mtime_ms = ?, sha256 = ?, title = ?, indexed_at = ? WHERE id = ?');
    this.#touchNote = db.prepare('UPDATE vault_notes SET size_bytes = ?, mtime_ms = ? WHERE path = ?');
    this.#deleteNote = db.prepare('DELETE FROM vault_notes WHERE id = ?');
    this.#deleteFts = db.prepare('DELETE FROM vault_fts WHERE rowid = ?');
    this.#insertFts = db.prepare('INSERT INTO vault_fts (rowid, path, title, body) VALUES (?, ?, ?, ?)');
    this.#search = db.prepare(
      `SELECT path, title, snippet(vault_fts, -1, '[', ']', '…', ${SNIPPET_TOKENS}) AS snippet, bm25(vault_fts, 0.0, ${TITLE_WEIGHT}.0, 1.0) AS rank
       FROM vault_fts WHERE vault_fts MATCH @match AND (@prefix = '' OR substr(path, 1, length(@prefix)) = @prefix) ORDER BY rank LIMIT @limit`,
    );
    this.#stamps = db.prepare('SELECT path, size_bytes, mtime_ms, sha256 FROM vault_notes');
    this.#count = db.prepare('SELECT count(*) AS n FROM vault_notes');
  }

  /** Index a note (new or changed), replacing what was there; `at` stamps `indexed_at`. */
  put(note: IndexedNote, at: number): void {
    const existing = this.#find.get(note.path);
    let id: number;
    if (existing === undefined) {
      id = Number(this.#insertNote.run(note.path, note.sizeBytes, note.mtimeMs, note.sha256, note.title, at).lastInsertRowid);
    } else {
      id = existing.id;
      this.#updateNote.run(note.sizeBytes, note.mtimeMs, note.sha256, note.title, at, id);
      this.#deleteFts.run(id);
    }
    this.#insertFts.run(id, note.path, note.title, note.body);
  }

  /** The note is unchanged (same sha256) but its size or mtime moved: remember them, so the next rescan does not read it again. */
  touch(path: string, stamp: Pick<NoteStamp, 'sizeBytes' | 'mtimeMs'>): void {
    this.#touchNote.run(stamp.sizeBytes, stamp.mtimeMs, path);
  }

  /** Forget a note; false when it was not indexed. */
  remove(path: string): boolean {
    const existing = this.#find.get(path);
    if (existing === undefined) return false;
    this.#deleteFts.run(existing.id);
    this.#deleteNote.run(existing.id);
    return true;
  }

  /** Run `fn` in one transaction (a rescan's many writes commit once). */
  batch<T>(fn: () => T): T {
    return this.#db.transaction(fn)();
  }

  /** What is known of one note; undefined when it is not indexed. */
  stamp(path: string): (NoteStamp & { title: string }) | undefined {
    const r = this.#stamp.get(path);
    return r === undefined ? undefined : { sizeBytes: r.size_bytes, mtimeMs: r.mtime_ms, sha256: r.sha256, title: r.title };
  }

  /** Forget every note (a reindex reads them all again). */
  clear(): void {
    this.#db.exec('DELETE FROM vault_fts; DELETE FROM vault_notes;');
  }

  /** What is known of every indexed note, by path. */
  stamps(): Map<string, NoteStamp> {
    const out = new Map<string, NoteStamp>();
    for (const r of this.#stamps.iterate()) out.set(r.path, { sizeBytes: r.size_bytes, mtimeMs: r.mtime_ms, sha256: r.sha256 });
    return out;
  }

  count(): number {
    return this.#count.get()!.n;
  }

  /**
   * The best notes for the query's words, best first: notes with every word; when none
   * has all of them, notes with any. `prefix` keeps notes whose path starts with it.
   */
  search(text: string, options: { limit: number; prefix: string }): KeywordHit[] {
    const terms = queryTerms(text);
    if (terms.length === 0) return [];
    let rows = this.#search.all({ match: ftsQuery(terms, 'AND'), prefix: options.prefix, limit: options.limit });
    if (rows.length === 0 && terms.length > 1) rows = this.#search.all({ match: ftsQuery(terms, 'OR'), prefix: options.prefix, limit: options.limit });
    return rows.map((r) => ({ path: r.path, title: r.title, snippet: r.snippet, score: -r.rank }));
  }
}
