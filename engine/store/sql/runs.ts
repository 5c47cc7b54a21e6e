/** The runs projection table: the writes the committer makes, one typed function per query. */
import type { Database } from 'better-sqlite3';
import type { RunState } from '../../../actors/index.js';
import { listByShape, whereOf } from '../where.js';

/** A run's row as the commit that creates it leaves it (`at`: its creation, and the row's update). */
export interface NewRun extends RunSettled {
  hordeId: string;
  hordeHash: string;
  provenance: string;
  /** JSON of the form's answers. */
  input: string;
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

/** A row of `runs` as stored. */
export interface RunRecord {
  id: string;
  horde_id: string;
  horde_hash: string;
  state: RunState;
  provenance: string;
  input: string;
  created_at: number;
  updated_at: number;
  finished_at: number | null;
  error_code: string | null;
  error: string | null;
  last_seq: number;
}

export interface RunListFilter {
  state?: RunState;
  hordeId?: string;
  /** Only runs created before this one (paging, newest first). */
  beforeRunId?: string;
  limit: number;
}

export function runReads(db: Database) {
  const byId = db.prepare<[id: string], RunRecord>('SELECT * FROM runs WHERE id = ?');
  const byProvenance = db.prepare<[provenance: string], string>('SELECT id FROM runs WHERE provenance = ? ORDER BY created_at LIMIT 1').pluck();
  const unfinished = db.prepare<[], string>("SELECT id FROM runs WHERE state IN ('queued', 'running') ORDER BY created_at").pluck();
  const countByState = db.prepare<[], { state: RunState; n: number }>('SELECT state, count(*) AS n FROM runs GROUP BY state');
  const triggerRuns = db.prepare<[], Pick<RunRecord, 'id' | 'horde_id' | 'provenance'>>(
    "SELECT id, horde_id, provenance FROM runs WHERE provenance LIKE 'trigger:%' AND state IN ('queued', 'running', 'awaiting_input') ORDER BY created_at");
  // One statement per filter shape (prepared at its first use), so each can use its index (runs_by_state, runs_by_horde).
  const listOf = listByShape<RunRecord>(db, (where) => `SELECT * FROM runs ${where} ORDER BY created_at DESC, id DESC LIMIT ?`);
  const list = (f: RunListFilter): RunRecord[] => {
    const where = whereOf([
      f.state === undefined ? undefined : ['state = ?', f.state],
      f.hordeId === undefined ? undefined : ['horde_id = ?', f.hordeId],
      f.beforeRunId === undefined ? undefined : ['(created_at, id) < (SELECT created_at, id FROM runs WHERE id = ?)', f.beforeRunId],
    ]);
    return listOf(where, f.limit);
  };
  return {
    byId: (id: string): RunRecord | undefined => byId.get(id),
    /** The first run of a provenance (an agent's `run_horde` call has its own: engine/runs/agent-provenance.ts). Unindexed: a scan of the runs. */
    idByProvenance: (provenance: string): string | undefined => byProvenance.get(provenance),
    /** Runs that were queued or running when the engine last stopped, oldest first. */
    unfinishedIds: (): string[] => unfinished.all(),
    countByState: () => countByState.all(),
    /** Runs a trigger started that have not finished (parked ones included). */
    unfinishedTriggerRuns: () => triggerRuns.all(),
    /** Newest first. */
    list,
  };
}

export function runWrites(db: Database) {
  const insert = db.prepare<[id: string, hordeId: string, hordeHash: string, state: RunState, provenance: string, input: string, createdAt: number, updatedAt: number, lastSeq: number, finishedAt: number | null, errorCode: string | null, error: string | null]>(
    `INSERT INTO runs (id, horde_id, horde_hash, state, provenance, input, created_at, updated_at, last_seq, finished_at, error_code, error)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
  const update = db.prepare<[state: RunState, at: number, lastSeq: number, finishedAt: number | null, errorCode: string | null, error: string | null, id: string]>(
    'UPDATE runs SET state = ?, updated_at = ?, last_seq = ?, finished_at = ?, error_code = ?, error = ? WHERE id = ?');
  // Sets no indexed column: rewriting an unchanged state would still rewrite its runs_by_state entry, one more page per commit.
  const progress = db.prepare<[at: number, lastSeq: number, id: string]>('UPDATE runs SET updated_at = ?, last_seq = ? WHERE id = ?');
  return {
    /** The commit that holds `run.created`: the run's row as that commit leaves it. */
    insert: (r: NewRun): void => void insert.run(r.id, r.hordeId, r.hordeHash, r.state, r.provenance, r.input, r.at, r.at, r.lastSeq, r.finishedAt, r.errorCode, r.error),
    /** After a commit's events of a run that changed its state: its state as the machine now says. */
    settle: (r: RunSettled): void => void update.run(r.state, r.at, r.lastSeq, r.finishedAt, r.errorCode, r.error, r.id),
    /** After a commit that left the run's state as it was (the error columns change only with it): how far its log goes. */
    progress: (id: string, at: number, lastSeq: number): void => void progress.run(at, lastSeq, id),
  };
}

export type RunWrites = ReturnType<typeof runWrites>;
export type RunReads = ReturnType<typeof runReads>;
