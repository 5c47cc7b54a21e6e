/**
 * The vault's keyword index (`vault_notes`, `vault_fts`, migration 7): one typed function
 * per query, positional parameters, typed rows. A note's `vault_fts` row has the rowid of
 * its `vault_notes` row. See engine/vault/search/keyword-index.ts.
 */
import type { Database } from 'better-sqlite3';

/** Title matches weigh this much more than body matches (bm25 column weights). */
const TITLE_WEIGHT = 10;
/** Tokens per snippet (FTS5's limit is 64). */
const SNIPPET_TOKENS = 16;

/** What `vault_notes` knows of a note. */
export interface NoteStampRow {
  size_bytes: number;
  mtime_ms: number;
  sha256: string;
  title: string;
}

export interface PathStampRow {
  path: string;
  size_bytes: number;
  mtime_ms: number;
  sha256: string;
}

export interface VaultHitRow {
  path: string;
  title: string;
  /** The best-matching column's passage, the matched words in [ ]. */
  snippet: string;
  /** bm25: lower is better. */
  rank: number;
}

export function vaultIndexQueries(db: Database) {
  const find = db.prepare<[path: string], number>('SELECT id FROM vault_notes WHERE path = ?').pluck();
  const stamp = db.prepare<[path: string], NoteStampRow>('SELECT size_bytes, mtime_ms, sha256, title FROM vault_notes WHERE path = ?');
  const insertNote = db.prepare<[path: string, sizeBytes: number, mtimeMs: number, sha256: string, title: string, indexedAt: number]>(
    'INSERT INTO vault_notes (path, size_bytes, mtime_ms, sha256, title, indexed_at) VALUES (?, ?, ?, ?, ?, ?)');
  const updateNote = db.prepare<[sizeBytes: number, mtimeMs: number, sha256: string, title: string, indexedAt: number, id: number]>(
    'UPDATE vault_notes SET size_bytes = ?, mtime_ms = ?, sha256 = ?, title = ?, indexed_at = ? WHERE id = ?');
  const touchNote = db.prepare<[sizeBytes: number, mtimeMs: number, path: string]>('UPDATE vault_notes SET size_bytes = ?, mtime_ms = ? WHERE path = ?');
  const deleteNote = db.prepare<[id: number]>('DELETE FROM vault_notes WHERE id = ?');
  const deleteText = db.prepare<[id: number]>('DELETE FROM vault_fts WHERE rowid = ?');
  const insertText = db.prepare<[id: number, path: string, title: string, body: string]>('INSERT INTO vault_fts (rowid, path, title, body) VALUES (?, ?, ?, ?)');
  const search = db.prepare<[{ match: string; prefix: string; limit: number }], VaultHitRow>(
    `SELECT path, title, snippet(vault_fts, -1, '[', ']', '…', ${SNIPPET_TOKENS}) AS snippet, bm25(vault_fts, 0.0, ${TITLE_WEIGHT}.0, 1.0) AS rank
     FROM vault_fts WHERE vault_fts MATCH @match AND (@prefix = '' OR substr(path, 1, length(@prefix)) = @prefix) ORDER BY rank LIMIT @limit`);
  const stamps = db.prepare<[], PathStampRow>('SELECT path, size_bytes, mtime_ms, sha256 FROM vault_notes');
  const count = db.prepare<[], number>('SELECT count(*) AS n FROM vault_notes').pluck();
  const clearTexts = db.prepare<[]>('DELETE FROM vault_fts');
  const clearNotes = db.prepare<[]>('DELETE FROM vault_notes');
  return {
    /** The id of a note's row. */
    noteId: (path: string): number | undefined => find.get(path),
    stamp: (path: string): NoteStampRow | undefined => stamp.get(path),
    /** A new note's row; returns its id. */
    insertNote: (path: string, sizeBytes: number, mtimeMs: number, sha256: string, title: string, indexedAt: number): number =>
      Number(insertNote.run(path, sizeBytes, mtimeMs, sha256, title, indexedAt).lastInsertRowid),
    updateNote: (id: number, sizeBytes: number, mtimeMs: number, sha256: string, title: string, indexedAt: number): void =>
      void updateNote.run(sizeBytes, mtimeMs, sha256, title, indexedAt, id),
    /** A note's size and mtime only. */
    touchNote: (path: string, sizeBytes: number, mtimeMs: number): void => void touchNote.run(sizeBytes, mtimeMs, path),
    deleteNote: (id: number): void => void deleteNote.run(id),
    /** The text of note `id` (its title and body, searched). */
    insertText: (id: number, path: string, title: string, body: string): void => void insertText.run(id, path, title, body),
    deleteText: (id: number): void => void deleteText.run(id),
    /** The best rows for an FTS5 MATCH expression, best first; `prefix` ('' for all) keeps paths that start with it. */
    search: (match: string, prefix: string, limit: number): VaultHitRow[] => search.all({ match, prefix, limit }),
    /** Every note's stamp, read as it is iterated. */
    stamps: (): IterableIterator<PathStampRow> => stamps.iterate(),
    count: (): number => count.get()!,
    /** Every note and its text forgotten. */
    clear: (): void => {
      clearTexts.run();
      clearNotes.run();
    },
  };
}

export type VaultIndexQueries = ReturnType<typeof vaultIndexQueries>;
