/**
 * The episodic memory's table `chat_fts` (migration 008): one row per finished chat turn.
 * One typed function per query, positional parameters, typed rows (as chat.ts). On a
 * Postgres store the same functions read and write `chat_recall` (../pg/sql/recall.ts).
 */
import type { Database } from 'better-sqlite3';
import { ftsQuery } from './fts-query.js';

export interface EpisodeRow {
  session_id: string;
  turn: number;
  agent: string;
  at: number;
  user: string;
  assistant: string;
}

export interface RecallHitRow {
  session_id: string;
  turn: number;
  agent: string;
  at: number;
  /** The session's title ('' when the session row is gone). */
  title: string;
  snippet: string;
  /** bm25: lower is better. */
  rank: number;
}

/** Finished turns to read: since an instant, of one agent or all, after the last turn read. */
export interface EpisodeWindow {
  /** ms since epoch: turns finished at or after it. */
  at: number;
  /** Only this agent's turns (absent: every agent's). */
  agent?: string;
  /** The last turn already read: only the turns after it (by at, session, turn). */
  after?: { at: number; sessionId: string; turn: number };
}

interface SinceParams {
  at: number;
  agent: string | null;
  afterAt: number | null;
  afterSession: string | null;
  afterTurn: number | null;
}

/** The functions the episodic memory reads and writes its index through. */
export interface RecallQueries {
  insert(row: EpisodeRow): void;
  /** A turn indexed before (it stopped on its budget, then went on): its old row goes. */
  remove(sessionId: string, turn: number): void;
  /** Turns matching any of `terms` (lower-case words of letters, digits and _), best first, but the session `excludeSession`'s. */
  search(terms: readonly string[], excludeSession: string, limit: number): RecallHitRow[];
  /** Turns of chat sessions (not of agent steps) in the window, oldest first, at most `limit`. */
  since(w: EpisodeWindow, limit: number): EpisodeRow[];
  /** How many turns the window holds. */
  countSince(w: EpisodeWindow): number;
}

/**
 * The index made again from the chat's log (what migration 8 did for the turns before it):
 * each turn's last `turn.finished` with its `turn.started`. `kowalski store copy` runs it
 * into a data folder, the index being derived, never copied.
 */
export const REBUILD_CHAT_FTS = `
DELETE FROM chat_fts;
INSERT INTO chat_fts (session_id, turn, agent, at, user, assistant)
SELECT f.session_id, json_extract(f.data, '$.turn'), json_extract(s.data, '$.agent.name'), f.at,
       json_extract(s.data, '$.text'), json_extract(f.data, '$.text')
FROM chat_events f
JOIN chat_events s ON s.session_id = f.session_id AND s.type = 'turn.started' AND json_extract(s.data, '$.turn') = json_extract(f.data, '$.turn')
WHERE f.type = 'turn.finished'
  AND f.seq = (SELECT max(g.seq) FROM chat_events g
               WHERE g.session_id = f.session_id AND g.type = 'turn.finished' AND json_extract(g.data, '$.turn') = json_extract(f.data, '$.turn'))
ORDER BY f.session_id, f.seq;
`;

export function recallQueries(db: Database): RecallQueries {
  const insert = db.prepare<[EpisodeRow]>('INSERT INTO chat_fts (session_id, turn, agent, at, user, assistant) VALUES (@session_id, @turn, @agent, @at, @user, @assistant)');
  const remove = db.prepare<[sessionId: string, turn: number]>('DELETE FROM chat_fts WHERE session_id = ? AND turn = ?');
  // snippet column -1: the column that matched best; the matched words in [ ].
  const search = db.prepare<[match: string, exclude: string, limit: number], RecallHitRow>(`
    SELECT f.session_id, f.turn, f.agent, f.at, coalesce(s.title, '') AS title,
           snippet(chat_fts, -1, '[', ']', '…', 16) AS snippet, bm25(chat_fts) AS rank
    FROM chat_fts f LEFT JOIN chat_sessions s ON s.id = f.session_id
    WHERE chat_fts MATCH ? AND f.session_id <> ?
    ORDER BY rank LIMIT ?`);
  // The turns of chat sessions only: an `agent` step's session (step_sessions) is a horde's, not the user's.
  // `after`: the last turn already read (at, session, turn), for the next page; at, session and turn order the turns.
  const window = `FROM chat_fts
    WHERE at >= @at AND (@agent IS NULL OR agent = @agent)
      AND session_id NOT IN (SELECT session_id FROM step_sessions)
      AND (@afterAt IS NULL OR (at, session_id, turn) > (@afterAt, @afterSession, @afterTurn))`;
  const since = db.prepare<[SinceParams & { limit: number }], EpisodeRow>(`
    SELECT session_id, turn, agent, at, user, assistant ${window} ORDER BY at, session_id, turn LIMIT @limit`);
  const countSince = db.prepare<[SinceParams], { n: number }>(`SELECT count(*) AS n ${window}`);
  const params = (w: EpisodeWindow): SinceParams => ({
    at: w.at, agent: w.agent ?? null, afterAt: w.after?.at ?? null, afterSession: w.after?.sessionId ?? null, afterTurn: w.after?.turn ?? null,
  });
  return {
    insert: (row) => void insert.run(row),
    remove: (sessionId, turn) => void remove.run(sessionId, turn),
    search: (terms, excludeSession, limit) => search.all(ftsQuery(terms, 'OR'), excludeSession, limit),
    since: (w, limit) => since.all({ ...params(w), limit }),
    countSince: (w) => countSince.get(params(w))!.n,
  };
}
