/** The vault's notes, their audited writes and search (`/api/vault`, `/api/writes`). */

/** A note as tools, the API and the app show it. */
export interface NoteInfo {
  /** Relative to the vault, `/`-separated, ends in `.md` (`projects/acme.md`). */
  path: string;
  /** The first `# ` heading, else the file name without `.md`. */
  title: string;
  size_bytes: number;
  /** ms since epoch. */
  modified_at: number;
  /** The first few hundred characters, front matter left as it is. */
  preview: string;
}

export type WriteOp = 'create' | 'append' | 'revert';
export type WriteState = 'pending' | 'done' | 'failed';

/** One audited write to a note (one row of `note_writes`). */
export interface NoteWrite {
  writeId: number;
  at: number;
  op: WriteOp;
  path: string;
  bytesBefore: number;
  bytesAfter: number;
  /** What was written (create, append), or what a revert took away. */
  content: string;
  /** Null when the note did not exist. */
  sha256Before: string | null;
  /** Null when the note no longer exists (a reverted create). */
  sha256After: string | null;
  sessionId: string | null;
  agent: string | null;
  traceId: number | null;
  by: string;
  state: WriteState;
  /** A failed write's reason (code and message), e.g. found changed after a crash. */
  error: { code: string; message: string } | null;
  /** For a revert: the write it undid. */
  reverts: number | null;
  /** The revert that undid this write, if one did. */
  revertedBy: number | null;
}

/** `GET /api/vault/note`: a note, its text, and its last writes. */
export interface NoteView {
  note: NoteInfo;
  content: string;
  /** The note's last writes, newest first. */
  writes: NoteWrite[];
}

/** One search result. */
export interface SearchHit {
  path: string;
  title: string;
  /** A short passage around the match, the matched words in `[` `]`. */
  snippet: string;
  /** Higher is better; comparable within one answer only. */
  score: number;
  /** Which side found it: `keyword`, `semantic`, or both. */
  found: Array<'keyword' | 'semantic'>;
  /** For a semantic hit: the heading of the chunk that matched. */
  heading?: string;
}

export interface SearchAnswer {
  query: string;
  mode: 'keyword' | 'hybrid';
  hits: SearchHit[];
  /** Said when the answer is less than asked for (semantic search off, or its server down: keyword results only). */
  note?: string;
}

/** What the vault settled at engine start: writes a crash left pending, completed or failed, and temp files of killed writes removed. */
export interface VaultRecovery {
  completed: number;
  failed: number;
  swept: number;
}
