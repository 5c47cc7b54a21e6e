/** The events table: append (inside the caller's transaction) and read back, decoded. */
import type { RunEvent } from '../../actors/index.js';
import { decodeEvent, encodeEvent } from './events.js';
import type { StoredEvent } from './events.js';
import type { RunStore } from './run-store.js';
import type { EventQueries, EventRow } from './sql/events.js';

export class EventLog {
  private readonly q: EventQueries;

  constructor(store: Pick<RunStore, 'events'>) {
    this.q = store.events;
  }

  /** Must run inside a transaction. Returns the global sequence number. */
  append(runId: string, seq: number, at: number, event: RunEvent): number {
    const { type, v, data } = encodeEvent(event);
    return this.q.append(runId, seq, type, v, at, data);
  }

  /** Every event of a run, decoded (throws a typed error on a row this build cannot read). */
  read(runId: string): StoredEvent[] {
    return this.q.byRun(runId).map(toStored);
  }

  readAfter(runId: string, afterSeq: number, limit = 1000): StoredEvent[] {
    return this.q.byRunAfter(runId, afterSeq, limit).map(toStored);
  }

  /** Every run's events after a global sequence number, in commit order. */
  readAllAfter(afterGseq: number, limit = 1000): StoredEvent[] {
    return this.q.allAfter(afterGseq, limit).map(toStored);
  }

  /** The run's newest committed seq (0: no such run). */
  lastSeq(runId: string): number {
    return this.q.lastSeq(runId);
  }

  /** The newest committed global sequence number (0 for an empty log). */
  lastGseq(): number {
    return this.q.lastGseq();
  }
}

function toStored(row: EventRow): StoredEvent {
  return { gseq: row.gseq, runId: row.run_id, seq: row.seq, at: row.at, event: decodeEvent(row.run_id, row.seq, row.type, row.v, row.data) };
}
