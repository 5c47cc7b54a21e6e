/** Migration 5: chat sessions (their own event log and a projection), and traces linked into delegation trees. Append-only: never edit a shipped migration. */
/** This file: its name is the migration's version and name (see index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE TABLE chat_events (
  session_id TEXT    NOT NULL,
  seq        INTEGER NOT NULL,           -- per-session sequence, from 1
  type       TEXT    NOT NULL,
  v          INTEGER NOT NULL,           -- the event type's version
  at         INTEGER NOT NULL,           -- engine clock, ms since epoch
  data       TEXT    NOT NULL,           -- JSON
  PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;

CREATE TABLE chat_sessions (
  id            TEXT PRIMARY KEY,
  agent         TEXT    NOT NULL,
  title         TEXT    NOT NULL,
  state         TEXT    NOT NULL CHECK (state IN ('idle', 'running', 'exhausted')),
  turns         INTEGER NOT NULL,
  last_stop     TEXT CHECK (last_stop IN ('done', 'budget_exhausted', 'error')),
  budget_limit  INTEGER NOT NULL,         -- of the current (last) turn
  budget_used   INTEGER NOT NULL,
  input_tokens  INTEGER NOT NULL,         -- every model call of the session
  output_tokens INTEGER NOT NULL,
  model_calls   INTEGER NOT NULL,
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  last_seq      INTEGER NOT NULL
);
CREATE INDEX chat_sessions_by_updated ON chat_sessions (updated_at);
CREATE INDEX chat_sessions_by_state ON chat_sessions (state);

-- A chat model call's trace: run_id holds the session id, step the node, attempt the turn.
ALTER TABLE traces ADD COLUMN session_id TEXT;
ALTER TABLE traces ADD COLUMN parent_id INTEGER;   -- the trace of the model call that delegated to this agent
ALTER TABLE traces ADD COLUMN agent TEXT;          -- the profile that made the call
CREATE INDEX traces_by_parent ON traces (parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX traces_by_session ON traces (session_id, id) WHERE session_id IS NOT NULL;
`;
