/**
 * The episodic memory's index on Postgres (`chat_recall`, migration 10): the same functions
 * as ../../sql/recall.ts, so `recall` and a consolidation's `recent_turns` find the turns
 * every node finished. A turn's row is written in the transaction of its `turn.finished`
 * (the chat's append runs in this session's transaction). Search: the terms, any of them,
 * as a `tsquery` of the `simple` configuration, best first by `ts_rank`; the snippet is
 * `ts_headline`'s, the matched words in `[` `]` as SQLite's `snippet()` marks them.
 */
import type { EpisodeRow, EpisodeWindow, RecallHitRow, RecallQueries } from '../../sql/recall.js';
import type { PgSession } from '../session.js';

/** The index made again from the chat's log (as migration 10 did): what `kowalski store copy` runs into a Postgres store. */
export const REBUILD_CHAT_RECALL = `
DELETE FROM chat_recall;
INSERT INTO chat_recall (session_id, turn, agent, at, user_text, assistant_text)
SELECT f.session_id, (f.data::jsonb ->> 'turn')::integer, coalesce(s.data::jsonb -> 'agent' ->> 'name', ''), f.at,
       coalesce(s.data::jsonb ->> 'text', ''), coalesce(f.data::jsonb ->> 'text', '')
FROM chat_events f
JOIN chat_events s ON s.session_id = f.session_id AND s.type = 'turn.started' AND s.data::jsonb -> 'turn' = f.data::jsonb -> 'turn'
WHERE f.type = 'turn.finished'
  AND f.seq = (SELECT max(g.seq) FROM chat_events g
               WHERE g.session_id = f.session_id AND g.type = 'turn.finished' AND g.data::jsonb -> 'turn' = f.data::jsonb -> 'turn');
`;

/** Snippets as SQLite's `snippet(chat_fts, -1, '[', ']', '…', 16)`: one passage of about 16 words. */
const HEADLINE = 'StartSel=[, StopSel=], MaxWords=16, MinWords=6, ShortWord=0, MaxFragments=1, FragmentDelimiter=…';

/** The window's condition (agent steps' sessions left out), on parameters $1…$5. */
const WINDOW = `at >= $1 AND ($2::text IS NULL OR agent = $2)
      AND session_id NOT IN (SELECT session_id FROM step_sessions)
      AND ($3::bigint IS NULL OR (at, session_id, turn) > ($3, $4::text, $5::integer))`;
const windowParams = (w: EpisodeWindow): unknown[] => [w.at, w.agent ?? null, w.after?.at ?? null, w.after?.sessionId ?? null, w.after?.turn ?? null];

export function pgRecallQueries(s: PgSession): RecallQueries {
  return {
    // A turn goes on after more budget and finishes again: its row is replaced (remove, then insert; the key backs it up).
    insert: (row) => s.write(
      `INSERT INTO chat_recall (session_id, turn, agent, at, user_text, assistant_text) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (session_id, turn) DO UPDATE SET agent = EXCLUDED.agent, at = EXCLUDED.at, user_text = EXCLUDED.user_text, assistant_text = EXCLUDED.assistant_text`,
      [row.session_id, row.turn, row.agent, row.at, row.user, row.assistant]),
    remove: (sessionId, turn) => s.write('DELETE FROM chat_recall WHERE session_id = $1 AND turn = $2', [sessionId, turn]),
    // Each term quoted as a lexeme (words only: no quote inside), any of them.
    search: (terms, excludeSession, limit) => s.all<RecallHitRow>(
      `SELECT r.session_id, r.turn, r.agent, r.at, coalesce(c.title, '') AS title,
              ts_headline('simple', r.user_text || ' ' || r.assistant_text, q.q, $4) AS snippet, -ts_rank(r.doc, q.q) AS rank
       FROM chat_recall r CROSS JOIN (SELECT to_tsquery('simple', $1) AS q) q LEFT JOIN chat_sessions c ON c.id = r.session_id
       WHERE r.doc @@ q.q AND r.session_id <> $2
       ORDER BY rank, r.at DESC, r.session_id, r.turn LIMIT $3`,
      [terms.map((t) => `'${t}'`).join(' | '), excludeSession, limit, HEADLINE]),
    since: (w, limit) => s.all<EpisodeRow>(
      `SELECT session_id, turn, agent, at, user_text AS "user", assistant_text AS assistant FROM chat_recall
       WHERE ${WINDOW} ORDER BY at, session_id, turn LIMIT $6`, [...windowParams(w), limit]),
    countSince: (w) => Number(s.get<{ n: string }>(`SELECT count(*) AS n FROM chat_recall WHERE ${WINDOW}`, windowParams(w))!.n),
  };
}
