/**
 * Postgres migration 9: what adapters, plugins and two step kinds keep, shared by the nodes
 * (as SQLite's migrations 11, 12, 14 and 15, column for column). Adapters' inbound records
 * and their dedupe keys, so a delivery reaching two nodes is answered once; each
 * conversation's chat session, so it goes on whichever node a message reaches; the
 * operator's switches. Plugins' grants and their audit. A `send` step's deliveries
 * (`step_sends`) and an `mcp_call` step's answers (`step_calls`), so a run handed to another
 * node neither sends nor calls again.
 *
 * Append-only: never edit a shipped migration.
 */
/** This file: its name is the migration's version and name (see ../../schema/index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE TABLE adapter_messages (
  id             BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
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
  created_at     BIGINT  NOT NULL,
  updated_at     BIGINT  NOT NULL,
  UNIQUE (adapter, delivery_id),
  CHECK ((turn IS NULL) = (session_id IS NULL))
);
CREATE INDEX adapter_messages_open ON adapter_messages (adapter, conversation, id) WHERE state IN ('received', 'answering', 'answered');

CREATE TABLE adapter_dedupe (
  adapter    TEXT    NOT NULL,
  key        TEXT    NOT NULL,
  message_id BIGINT  NOT NULL REFERENCES adapter_messages (id),
  created_at BIGINT  NOT NULL,
  PRIMARY KEY (adapter, key)
);

CREATE TABLE adapter_sessions (
  adapter      TEXT    NOT NULL,
  conversation TEXT    NOT NULL,
  session_id   TEXT    NOT NULL,
  created_at   BIGINT  NOT NULL,
  PRIMARY KEY (adapter, conversation)
);

CREATE TABLE adapter_switches (
  id      BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  adapter TEXT    NOT NULL,
  enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  by      TEXT    NOT NULL,
  at      BIGINT  NOT NULL
);
CREATE INDEX adapter_switches_by_adapter ON adapter_switches (adapter, id);

CREATE TABLE plugin_grants (
  name              TEXT    PRIMARY KEY,
  version           TEXT    NOT NULL,
  permissions_hash  TEXT    NOT NULL,
  permissions       TEXT    NOT NULL,              -- JSON, canonical: what was granted
  granted_by        TEXT    NOT NULL,
  granted_at        BIGINT  NOT NULL
);
CREATE TABLE plugin_grant_audit (
  id                BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  name              TEXT    NOT NULL,
  action            TEXT    NOT NULL CHECK (action IN ('grant', 'revoke')),
  version           TEXT    NOT NULL,
  permissions_hash  TEXT    NOT NULL,
  permissions       TEXT    NOT NULL,
  by                TEXT    NOT NULL,
  at                BIGINT  NOT NULL
);
CREATE INDEX plugin_grant_audit_name ON plugin_grant_audit (name, id);

CREATE TABLE step_sends (
  id          BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id      TEXT    NOT NULL,
  step        TEXT    NOT NULL,
  adapter     TEXT    NOT NULL,
  target      TEXT    NOT NULL,
  state       TEXT    NOT NULL CHECK (state IN ('sending', 'sent', 'refused', 'unknown')),
  bytes       INTEGER NOT NULL,
  sha256      TEXT    NOT NULL,
  message_id  TEXT,
  error       TEXT,
  created_at  BIGINT  NOT NULL,
  updated_at  BIGINT  NOT NULL,
  UNIQUE (run_id, step)
);

CREATE TABLE step_calls (
  id            BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id        TEXT    NOT NULL,
  step          TEXT    NOT NULL,
  attempt       INTEGER NOT NULL,
  tool          TEXT    NOT NULL,
  args_sha256   TEXT    NOT NULL,
  content       TEXT    NOT NULL,
  structured    TEXT,
  from_attempt  INTEGER,
  created_at    BIGINT  NOT NULL,
  UNIQUE (run_id, step, attempt)
);
`;
