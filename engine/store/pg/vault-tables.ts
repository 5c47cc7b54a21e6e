/**
 * The vault's audit and the Rookery's drafts in the Postgres store the nodes share
 * (migration 8): the typed queries both subsystems already use, on a session of the
 * node's connection, and that session's transactions (a vault write's result and the
 * revert it settles commit together).
 */
import type { NoteWriteQueries } from '../sql/note-writes.js';
import type { RookeryQueries } from '../sql/rookery.js';
import { PgSession } from './session.js';
import type { SyncPg } from './sync-pg.js';
import { pgNoteWriteQueries } from './sql/note-writes.js';
import { pgRookeryQueries } from './sql/rookery.js';

export interface PgVaultTables {
  noteWrites: NoteWriteQueries;
  rookery: RookeryQueries;
  transaction(fn: () => void): void;
}

export function pgVaultTables(pg: SyncPg): PgVaultTables {
  const s = new PgSession(pg);
  return { noteWrites: pgNoteWriteQueries(s), rookery: pgRookeryQueries(s), transaction: (fn) => s.transaction(fn)() };
}
