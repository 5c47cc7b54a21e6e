/** The events table on Postgres: the same functions as ../../sql/events.ts. Appends wait in the commit, and go as one statement. */
import type { EventQueries, EventRow } from '../../sql/events.js';
import type { Bulk, PgSession } from '../session.js';

const APPEND: Bulk = {
  rank: 0,
  sql: `INSERT INTO events (gseq, run_id, seq, type, v, at, data)
        SELECT * FROM unnest($1::bigint[], $2::text[], $3::integer[], $4::text[], $5::integer[], $6::bigint[], $7::text[])`,
};

export function pgEventQueries(s: PgSession): EventQueries {
  return {
    append: (runId, seq, type, v, at, data) => {
      const gseq = s.nextGseq();
      s.writeRow(APPEND, [gseq, runId, seq, type, v, at, data]);
      return gseq;
    },
    byRun: (runId) => s.all<EventRow>('SELECT * FROM events WHERE run_id = $1 ORDER BY seq', [runId]),
    byRunAfter: (runId, afterSeq, limit) => s.all<EventRow>('SELECT * FROM events WHERE run_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [runId, afterSeq, limit]),
    allAfter: (afterGseq, limit) => s.all<EventRow>('SELECT * FROM events WHERE gseq > $1 ORDER BY gseq LIMIT $2', [afterGseq, limit]),
    lastGseq: () => s.get<{ g: number }>('SELECT coalesce(max(gseq), 0) AS g FROM events')!.g,
    lastSeq: (runId) => s.get<{ s: number }>('SELECT coalesce(max(seq), 0) AS s FROM events WHERE run_id = $1', [runId])!.s,
  };
}
