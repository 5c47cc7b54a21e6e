/**
 * The chat tables: one typed function per query, positional parameters, typed rows
 * (as events.ts). Appends and the projection upsert run inside the chat store's
 * transaction.
 */
import type { Database } from 'better-sqlite3';

export interface ChatEventRow {
  session_id: string;
  seq: number;
  type: string;
  v: number;
  at: number;
  data: string;
}

export interface ChatSessionRow {
  id: string;
  agent: string;
  title: string;
  state: string;
  turns: number;
  last_stop: string | null;
  budget_limit: number;
  budget_used: number;
  input_tokens: number;
  output_tokens: number;
  model_calls: number;
  created_at: number;
  updated_at: number;
  last_seq: number;
}

/** The chat tables' queries, on SQLite (here) or Postgres (store/pg/sql/chat.ts). */
export interface ChatQueries {
  append(sessionId: string, seq: number, type: string, v: number, at: number, data: string): void;
  bySession(sessionId: string): ChatEventRow[];
  /** At most `limit` events of a session after `after`, in order (a page of its log); iterated, so a reader that stops early may read no further rows. */
  page(sessionId: string, after: number, limit: number): Iterable<ChatEventRow>;
  upsertSession(row: ChatSessionRow): void;
  session(id: string): ChatSessionRow | undefined;
  sessions(limit: number): ChatSessionRow[];
  /** Sessions whose turn was under way when the engine stopped. */
  runningIds(): string[];
}

export function chatQueries(db: Database): ChatQueries {
  const insert = db.prepare<[sessionId: string, seq: number, type: string, v: number, at: number, data: string]>(
    'INSERT INTO chat_events (session_id, seq, type, v, at, data) VALUES (?, ?, ?, ?, ?, ?)');
  const bySession = db.prepare<[sessionId: string], ChatEventRow>('SELECT * FROM chat_events WHERE session_id = ? ORDER BY seq');
  const pageOf = db.prepare<[sessionId: string, after: number, limit: number], ChatEventRow>(
    'SELECT * FROM chat_events WHERE session_id = ? AND seq > ? ORDER BY seq LIMIT ?');
  const upsert = db.prepare<[ChatSessionRow]>(`INSERT INTO chat_sessions (id, agent, title, state, turns, last_stop, budget_limit, budget_used,
      input_tokens, output_tokens, model_calls, created_at, updated_at, last_seq)
    VALUES (@id, @agent, @title, @state, @turns, @last_stop, @budget_limit, @budget_used, @input_tokens, @output_tokens, @model_calls,
      @created_at, @updated_at, @last_seq)
    ON CONFLICT (id) DO UPDATE SET title = excluded.title, state = excluded.state, turns = excluded.turns, last_stop = excluded.last_stop,
      budget_limit = excluded.budget_limit, budget_used = excluded.budget_used, input_tokens = excluded.input_tokens,
      output_tokens = excluded.output_tokens, model_calls = excluded.model_calls, updated_at = excluded.updated_at, last_seq = excluded.last_seq`);
  const session = db.prepare<[id: string], ChatSessionRow>('SELECT * FROM chat_sessions WHERE id = ?');
  const sessions = db.prepare<[limit: number], ChatSessionRow>('SELECT * FROM chat_sessions ORDER BY updated_at DESC, id DESC LIMIT ?');
  const running = db.prepare<[], string>("SELECT id FROM chat_sessions WHERE state = 'running' ORDER BY updated_at").pluck();
  return {
    append: (sessionId: string, seq: number, type: string, v: number, at: number, data: string): void => void insert.run(sessionId, seq, type, v, at, data),
    bySession: (sessionId: string): ChatEventRow[] => bySession.all(sessionId),
    page: (sessionId: string, after: number, limit: number): IterableIterator<ChatEventRow> => pageOf.iterate(sessionId, after, limit),
    upsertSession: (row: ChatSessionRow): void => void upsert.run(row),
    session: (id: string): ChatSessionRow | undefined => session.get(id),
    sessions: (limit: number): ChatSessionRow[] => sessions.all(limit),
    runningIds: (): string[] => running.all(),
  };
}
