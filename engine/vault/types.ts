/**
 * The vault's shapes, shared by its parts: the notes (vault-notes), the audited writes
 * (note-writes), the search index (search/) and the memory tiers that use them.
 */

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

/** Who made a write: an agent (its session, and the trace of the model call that asked), or the operator (a revert). */
export interface WriteOrigin {
  sessionId: string | null;
  agent: string | null;
  /** Never null for an agent's write. */
  traceId: number | null;
  /** The tool call's durable key: the same call made again after a crash finds its write instead of writing twice. */
  callKey: string | null;
  /** `agent`, `cli`, `api`, `app`. */
  by: string;
}

export type WriteOp = 'create' | 'append' | 'revert';

/** What the vault settled at engine start: writes a crash left pending, completed or failed, and temp files of killed writes removed. */
export interface VaultRecovery {
  completed: number;
  failed: number;
  swept: number;
}
export type WriteState = 'pending' | 'done' | 'failed';

/** One row of `note_writes`. */
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

export interface SearchOptions {
  limit?: number;
  /**
   * Ask for semantic results too (merged by reciprocal rank fusion); only when semantic search is switched on.
   * `auto` (what agents' searches use): semantic results when it is on, keyword results without a note when it is off.
   */
  semantic?: boolean | 'auto';
  /** Only notes under this folder (`memory/`). */
  under?: string;
}

/** The index as the rest of the vault uses it: told of every write kowalski makes (the watcher catches the others). */
export interface VaultIndex {
  /** A note was written, created or removed (path relative to the vault): index it again now. */
  noteChanged(path: string): void;
  search(query: string, options?: SearchOptions): Promise<SearchAnswer>;
}
