/** The chat tables on Postgres (migration 7): the same functions as ../../sql/chat.ts. Appends wait in the chat store's transaction and go at its commit. */
import type { ChatEventRow, ChatQueries, ChatSessionRow } from '../../sql/chat.js';
import type { PgSession } from '../session.js';

export function pgChatQueries(s: PgSession): ChatQueries {
  return {
    append: (sessionId, seq, type, v, at, data) => s.write('INSERT INTO chat_events (session_id, seq, type, v, at, data) VALUES ($1, $2, $3, $4, $5, $6)', [sessionId, seq, type, v, at, data]),
    bySession: (sessionId) => s.all<ChatEventRow>('SELECT * FROM chat_events WHERE session_id = $1 ORDER BY seq', [sessionId]),
    page: (sessionId, after, limit) => s.all<ChatEventRow>('SELECT * FROM chat_events WHERE session_id = $1 AND seq > $2 ORDER BY seq LIMIT $3', [sessionId, after, limit]),
    upsertSession: (r) => s.write(
      `INSERT INTO chat_sessions (id, agent, title, state, turns, last_stop, budget_limit, budget_used, input_tokens, output_tokens, model_calls, created_at, updated_at, last_seq)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
       ON CONFLICT (id) DO UPDATE SET title = excluded.title, state = excluded.state, turns = excluded.turns, last_stop = excluded.last_stop,
         budget_limit = excluded.budget_limit, budget_used = excluded.budget_used, input_tokens = excluded.input_tokens,
         output_tokens = excluded.output_tokens, model_calls = excluded.model_calls, updated_at = excluded.updated_at, last_seq = excluded.last_seq`,
      [r.id, r.agent, r.title, r.state, r.turns, r.last_stop, r.budget_limit, r.budget_used, r.input_tokens, r.output_tokens, r.model_calls, r.created_at, r.updated_at, r.last_seq]),
    session: (id) => s.get<ChatSessionRow>('SELECT * FROM chat_sessions WHERE id = $1', [id]),
    sessions: (limit) => s.all<ChatSessionRow>('SELECT * FROM chat_sessions ORDER BY updated_at DESC, id DESC LIMIT $1', [limit]),
    runningIds: () => s.all<{ id: string }>("SELECT id FROM chat_sessions WHERE state = 'running' ORDER BY updated_at").map((r) => r.id),
  };
}
