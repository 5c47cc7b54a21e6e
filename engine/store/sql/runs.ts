/** The runs projection table: the writes the committer makes, one typed function per query. */
import type { Database } from 'better-sqlite3';
import type { RunState } from '../../../actors/index.js';

export interface NewRun {
  id: string;
  hordeId: string;
  hordeHash: string;
  provenance: string;
  /** JSON of the form's answers. */
  input: string;
  at: number;
  seq: number;
}

export interface RunSettled {
  id: string;
  state: RunState;
  at: number;
  lastSeq: number;
  /** `at` when the state is final, else null. */
  finishedAt: number | null;
  errorCode: string | null;
  error: string | null;
}

export function runWrites(db: Database) {
  const insert = db.prepare<[id: string, hordeId: string, hordeHash: string, provenance: string, input: string, createdAt: number, updatedAt: number, seq: number]>(
    `INSERT INTO runs (id, horde_id, horde_hash, state, provenance, input, created_at, updated_at, last_seq)
     VALUES (?, ?, ?, 'queued', ?, ?, ?, ?, ?)`);
  const update = db.prepare<[state: RunState, at: number, lastSeq: number, finishedAt: number | null, errorCode: string | null, error: string | null, id: string]>(
    'UPDATE runs SET state = ?, updated_at = ?, last_seq = ?, finished_at = ?, error_code = ?, error = ? WHERE id = ?');
  return {
    /** `run.created`: the run's row, queued. */
    insert: (r: NewRun): void => void insert.run(r.id, r.hordeId, r.hordeHash, r.provenance, r.input, r.at, r.at, r.seq),
    /** After each batch of a run's events: its state as the machine now says. */
    settle: (r: RunSettled): void => void update.run(r.state, r.at, r.lastSeq, r.finishedAt, r.errorCode, r.error, r.id),
  };
}

export type RunWrites = ReturnType<typeof runWrites>;
