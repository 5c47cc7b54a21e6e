/** The events table on Postgres: the same functions as ../../sql/events.ts. Appends wait in the commit's batch. */
import type { EventQueries, EventRow } from '../../sql/events.js';
import type { PgSession } from '../session.js';

export function pgEventQueries(s: PgSession): EventQueries {
  return {
    append: (runId, seq, type, v, at, data) => {
      const gseq = s.nextGseq();
      s.write('INSERT INTO events (gseq, run_id, seq, type, v, at, data) VALUES ($1, $2, $3, $4, $5, $6, $7)', [gseq, runId, seq, type, v, at, data]);
      return gseq;
    },
    byRun: (runId) => s.all<EventRow>('SELECT * FROM events WHERE run_id = $1 ORDER BY seq', [runId]),
    byRunAfter: (runId, afterSeq, limit) => s.all<EventRow>('SELECT * FROM events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [runId, afterSeq, limit]),
    allAfter: (afterGseq, limit) => s.all<EventRow>('SELECT * FROM events WHERE gseq > $1 ORDER BY gseq LIMIT $2', [afterGseq, limit]),
    lastGseq: () => s.get<{ g: number }>('SELECT coalesce(max(gseq), 0) AS g FROM events')!.g,
  };
}
