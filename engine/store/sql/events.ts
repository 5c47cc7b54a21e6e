/**
 * The events table: one typed function per query, positional parameters, typed rows
 * (the model is graphile-worker's `src/sql/`: a backend for another database provides
 * the same functions). Appends run inside the committer's transaction.
 */
import type { Database } from 'better-sqlite3';

export interface EventRow {
  gseq: number;
  run_id: string;
  seq: number;
  type: string;
  v: number;
  at: number;
  data: string;
}

export function eventQueries(db: Database) {
  const insert = db.prepare<[runId: string, seq: number, type: string, v: number, at: number, data: string]>(
    'INSERT INTO events (run_id, seq, type, v, at, data) VALUES (?, ?, ?, ?, ?, ?)');
  const byRun = db.prepare<[runId: string], EventRow>('SELECT * FROM events WHERE run_id = ? ORDER BY seq');
  const byRunAfter = db.prepare<[runId: string, afterSeq: number, limit: number], EventRow>(
    'SELECT * FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?');
  const allAfter = db.prepare<[afterGseq: number, limit: number], EventRow>('SELECT * FROM events WHERE gseq > ? ORDER BY gseq LIMIT ?');
  const maxGseq = db.prepare<[], number>('SELECT coalesce(max(gseq), 0) FROM events').pluck();
  const maxSeq = db.prepare<[runId: string], number>('SELECT coalesce(max(seq), 0) FROM events WHERE run_id = ?').pluck();
  return {
    /** Append one event; its global sequence number. */
    append: (runId: string, seq: number, type: string, v: number, at: number, data: string): number =>
      Number(insert.run(runId, seq, type, v, at, data).lastInsertRowid),
    byRun: (runId: string): EventRow[] => byRun.all(runId),
    byRunAfter: (runId: string, afterSeq: number, limit: number): EventRow[] => byRunAfter.all(runId, afterSeq, limit),
    allAfter: (afterGseq: number, limit: number): EventRow[] => allAfter.all(afterGseq, limit),
    lastGseq: (): number => maxGseq.get() ?? 0,
    /** The run's newest seq (0: no such run). */
    lastSeq: (runId: string): number => maxSeq.get(runId) ?? 0,
  };
}

export type EventQueries = ReturnType<typeof eventQueries>;
