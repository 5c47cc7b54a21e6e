/** The events table: append (inside the caller's transaction) and read back. */
import type { Database, Statement } from 'better-sqlite3';
import type { RunEvent } from '../../actors/index.js';
import { decodeEvent, encodeEvent } from '../events.js';
import type { StoredEvent } from '../events.js';

interface EventRow {
  gseq: number;
  run_id: string;
  seq: number;
  type: string;
  v: number;
  at: number;
  data: string;
}

export class EventLog {
  private readonly insert: Statement;
  private readonly byRun: Statement;
  private readonly byRunAfter: Statement;
  private readonly allAfter: Statement;
  private readonly maxGseq: Statement;

  constructor(db: Database) {
    this.insert = db.prepare('INSERT INTO events (run_id, seq, type, v, at, data) VALUES (?, ?, ?, ?, ?, ?)');
    this.byRun = db.prepare('SELECT * FROM events WHERE run_id = ? ORDER BY seq');
    this.byRunAfter = db.prepare('SELECT * FROM events WHERE run_id = ? AND seq > ? ORDER BY seq LIMIT ?');
    this.allAfter = db.prepare('SELECT * FROM events WHERE gseq > ? ORDER BY gseq LIMIT ?');
    this.maxGseq = db.prepare('SELECT coalesce(max(gseq), 0) FROM events').pluck();
  }

  /** Must run inside a transaction. Returns the global sequence number. */
  append(runId: string, seq: number, at: number, event: RunEvent): number {
    const { type, v, data } = encodeEvent(event);
    return Number(this.insert.run(runId, seq, type, v, at, data).lastInsertRowid);
  }

  /** Every event of a run, decoded (throws a typed error on a row this build cannot read). */
  read(runId: string): StoredEvent[] {
    return (this.byRun.all(runId) as EventRow[]).map(toStored);
  }

  readAfter(runId: string, afterSeq: number, limit = 1000): StoredEvent[] {
    return (this.byRunAfter.all(runId, afterSeq, limit) as EventRow[]).map(toStored);
  }

  /** Every run's events after a global sequence number, in commit order. */
  readAllAfter(afterGseq: number, limit = 1000): StoredEvent[] {
    return (this.allAfter.all(afterGseq, limit) as EventRow[]).map(toStored);
  }

  /** The newest committed global sequence number (0 for an empty log). */
  lastGseq(): number {
    return this.maxGseq.get() as number;
  }
}

function toStored(row: EventRow): StoredEvent {
  return { gseq: row.gseq, runId: row.run_id, seq: row.seq, at: row.at, event: decodeEvent(row.run_id, row.seq, row.type, row.v, row.data) };
}
