/**
 * Migration 11: adapters (engine/adapters/). `adapter_messages` is the durable record of every
 * inbound message — unique per adapter and channel delivery id, its state, its chat session and
 * turn, the answer and the reply attempts; `adapter_dedupe` the other keys a message may come
 * back under (kept at least 24 h); `adapter_sessions` the chat session of each conversation;
 * `adapter_switches` the operator's enable/disable (over config.toml's `enabled`) and its audit.
 * Append-only: never edit a shipped migration.
 */
/** This file: its name is the migration's version and name (see index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE TABLE adapter_messages (
  id             INTEGER PRIMARY KEY,
  adapter        TEXT    NOT NULL,
  delivery_id    TEXT    NOT NULL,                -- the channel's own id of the delivery
  conversation   TEXT    NOT NULL,
  sender         TEXT    NOT NULL,
  text           TEXT    NOT NULL,
  reply_to       TEXT    NOT NULL,                -- JSON: what the adapter needs to answer
  state          TEXT    NOT NULL CHECK (state IN ('received', 'answering', 'answered', 'replied', 'failed', 'ignored')),
  session_id     TEXT,
  turn           INTEGER,                         -- the session's turn, fixed before the message is sent to it
  answer         TEXT,
  reply_attempts INTEGER NOT NULL DEFAULT 0,
  last_error     TEXT,
  created_at     INTEGER NOT NULL,
  updated_at     INTEGER NOT NULL,
  UNIQUE (adapter, delivery_id),
  CHECK ((turn IS NULL) = (session_id IS NULL))
);
CREATE INDEX adapter_messages_open ON adapter_messages (adapter, conversation, id) WHERE state IN ('received', 'answering', 'answered');

CREATE TABLE adapter_dedupe (
  adapter    TEXT    NOT NULL,
  key        TEXT    NOT NULL,
  message_id INTEGER NOT NULL REFERENCES adapter_messages (id),
  created_at INTEGER NOT NULL,
  PRIMARY KEY (adapter, key)
) WITHOUT ROWID;

CREATE TABLE adapter_sessions (
  adapter      TEXT    NOT NULL,
  conversation TEXT    NOT NULL,
  session_id   TEXT    NOT NULL,
  created_at   INTEGER NOT NULL,
  PRIMARY KEY (adapter, conversation)
) WITHOUT ROWID;

CREATE TABLE adapter_switches (
  id      INTEGER PRIMARY KEY,
  adapter TEXT    NOT NULL,
  enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  by      TEXT    NOT NULL,
  at      INTEGER NOT NULL
);
CREATE INDEX adapter_switches_by_adapter ON adapter_switches (adapter, id);
`;
