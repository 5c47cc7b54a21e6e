/**
 * The episodic memory's table `chat_fts` (migration 008): one row per finished chat turn.
 * One typed function per query, positional parameters, typed rows (as chat.ts).
 */
import type { Database } from 'better-sqlite3';

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

export function recallQueries(db: Database) {
  const insert = db.prepare<[EpisodeRow]>('INSERT INTO chat_fts (session_id, turn, agent, at, user, assistant) VALUES (@session_id, @turn, @agent, @at, @user, @assistant)');
  const remove = db.prepare<[sessionId: string, turn: number]>('DELETE FROM chat_fts WHERE session_id = ? AND turn = ?');
  // snippet column -1: the column that matched best; the matched words in [ ].
  const search = db.prepare<[match: string, exclude: string, limit: number], RecallHitRow>(`
    SELECT f.session_id, f.turn, f.agent, f.at, coalesce(s.title, '') AS title,
           snippet(chat_fts, -1, '[', ']', '…', 16) AS snippet, bm25(chat_fts) AS rank
    FROM chat_fts f LEFT JOIN chat_sessions s ON s.id = f.session_id
    WHERE chat_fts MATCH ? AND f.session_id <> ?
    ORDER BY rank LIMIT ?`);
  const since = db.prepare<[{ at: number; agent: string | null; limit: number }], EpisodeRow>(`
    SELECT session_id, turn, agent, at, user, assistant FROM chat_fts
    WHERE at >= @at AND (@agent IS NULL OR agent = @agent) ORDER BY at LIMIT @limit`);
  return {
    insert: (row: EpisodeRow): void => void insert.run(row),
    /** A turn indexed before (it stopped on its budget, then went on): its old row goes. */
    remove: (sessionId: string, turn: number): void => void remove.run(sessionId, turn),
    search: (match: string, excludeSession: string, limit: number): RecallHitRow[] => search.all(match, excludeSession, limit),
    /** Turns finished at or after `at` (of one agent, or all), oldest first. */
    since: (at: number, agent: string | null, limit: number): EpisodeRow[] => since.all({ at, agent, limit }),
  };
}

export type RecallQueries = ReturnType<typeof recallQueries>;
