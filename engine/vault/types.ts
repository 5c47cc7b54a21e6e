/**
 * The vault's shapes, shared by its parts: the notes (vault-notes), the audited writes
 * (note-writes), the search index (search/) and the memory tiers that use them.
 */
import type { SearchAnswer } from '../../contract/vault.js';
export type { NoteInfo, NoteWrite, SearchAnswer, SearchHit, VaultRecovery, WriteOp, WriteState } from '../../contract/vault.js';

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

/**
 * Holds a note for one write across every process writing one vault folder (the nodes of
 * a shared Postgres store, the folder under `[store] files`). A single process needs none:
 * its own per-note queue keeps its writes apart.
 */
export interface NoteLocks {
  /** Take the note, waiting while another process holds it (KW_ERR_VAULT_NOTE_BUSY when it does not let go in time); resolves with its release. */
  hold(rel: string): Promise<() => void>;
  /** Take the note only if no other process holds it now; undefined when one does. */
  tryHold(rel: string): (() => void) | undefined;
}
