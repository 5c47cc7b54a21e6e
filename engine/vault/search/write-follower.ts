/**
 * Following the vault's audit when several nodes share it (a Postgres store, the vault
 * under `[store] files`): the keyword index and the vectors stay in each node's data
 * folder, so each node reads the writes made since it last looked — every node's, by
 * write id — and indexes those notes again (refreshNote: a note as indexed is only
 * stat'ed). The search calls it before each query, so the same query gives the same
 * notes on every node.
 *
 * The cursor lives in memory: a node's start rescans the whole folder, and the cursor
 * starts below the oldest write then in flight. It never passes a write still `pending`
 * (its note may change when it settles): the writes from there on are read again at the
 * next search, at most BATCH of them, until it settles.
 */
import type { NoteWriteStep } from '../../store/sql/note-writes.js';

/** The audit as the follower reads it (NoteWriteQueries on Postgres). */
export interface WriteLog {
  since(after: number, limit: number): NoteWriteStep[];
  newest(): number;
  pending(): ReadonlyArray<{ write_id: number }>;
}

/** Writes read per query. */
const BATCH = 500;

/** A function giving the notes written since its last call (the first: since it was made, and the writes then in flight). */
export function followWrites(log: WriteLog): () => string[] {
  const inFlight = log.pending()[0];
  let cursor = inFlight === undefined ? log.newest() : inFlight.write_id - 1;
  return () => {
    const paths = new Set<string>();
    for (;;) {
      const rows = log.since(cursor, BATCH);
      let held = false;
      for (const row of rows) {
        paths.add(row.path);
        if (row.state === 'pending') held = true;
        if (!held) cursor = row.write_id;
      }
      if (held || rows.length < BATCH) break;
    }
    return [...paths];
  };
}
