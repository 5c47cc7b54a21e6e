/**
 * Postgres migration 7: chat sessions and the traces of model calls, shared by the nodes
 * (issue 40), as SQLite's migrations 2, 5 and 13 left them — `chat_events` (a session's
 * log), `chat_sessions` (its projection), `traces`, `model_tool_modes` and `step_sessions`
 * (an `agent` step's session) — with the same columns, keys and indexes; times in ms are
 * BIGINT. A session begun on one node is listed, read and continued on any other.
 *
 * And `chat_leases`: the node running a session's turn, at an epoch, until a time by the
 * database's clock (as `run_leases`). A turn claims it (raising the epoch), the node's
 * heartbeat renews it, the turn's end releases it; every append of a session calls
 * `kw_chat_fence`, so a node that lost the session (paused past its lease while another
 * node took the turn over) cannot write into its log. A row is never deleted.
 *
 * SQLite's `chat_fts` (the episodic memory's index, derived from the log) stays per node.
 * Append-only: never edit a shipped migration.
 */
/** This file: its name is the migration's version and name (see ../../schema/index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE TABLE traces (
  id            BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  run_id        TEXT    NOT NULL,
  step          TEXT    NOT NULL,
  attempt       INTEGER NOT NULL,
  seq           INTEGER NOT NULL,
  provider      TEXT    NOT NULL,
  model         TEXT    NOT NULL,
  mode          TEXT    NOT NULL,
  input_tokens  INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cost_usd      DOUBLE PRECISION,
  latency_ms    BIGINT  NOT NULL,
  attempts      INTEGER NOT NULL,
  tool_calls    INTEGER NOT NULL,
  error_code    TEXT,
  error         TEXT,
  started_at    BIGINT  NOT NULL,
  data          TEXT    NOT NULL,       -- JSON, byte for byte as SQLite keeps it
  session_id    TEXT,
  parent_id     BIGINT,
  agent         TEXT
);
CREATE INDEX traces_by_run ON traces (run_id, id);
CREATE INDEX traces_by_parent ON traces (parent_id) WHERE parent_id IS NOT NULL;
CREATE INDEX traces_by_session ON traces (session_id, id) WHERE session_id IS NOT NULL;

CREATE TABLE model_tool_modes (
  model      TEXT    PRIMARY KEY,
  mode       TEXT    NOT NULL,
  learned_at BIGINT  NOT NULL
);

CREATE TABLE chat_events (
  session_id TEXT    NOT NULL,
  seq        INTEGER NOT NULL,
  type       TEXT    NOT NULL,
  v          INTEGER NOT NULL,
  at         BIGINT  NOT NULL,
  data       TEXT    NOT NULL,
  PRIMARY KEY (session_id, seq)
);

CREATE TABLE chat_sessions (
  id            TEXT    PRIMARY KEY,
  agent         TEXT    NOT NULL,
  title         TEXT    NOT NULL,
  state         TEXT    NOT NULL CHECK (state IN ('idle', 'running', 'exhausted')),
  turns         INTEGER NOT NULL,
  last_stop     TEXT    CHECK (last_stop IN ('done', 'budget_exhausted', 'error')),
  budget_limit  INTEGER NOT NULL,
  budget_used   INTEGER NOT NULL,
  input_tokens  BIGINT  NOT NULL,
  output_tokens BIGINT  NOT NULL,
  model_calls   INTEGER NOT NULL,
  created_at    BIGINT  NOT NULL,
  updated_at    BIGINT  NOT NULL,
  last_seq      INTEGER NOT NULL
);
CREATE INDEX chat_sessions_by_updated ON chat_sessions (updated_at);
CREATE INDEX chat_sessions_by_state ON chat_sessions (state);

CREATE TABLE step_sessions (
  session_id  TEXT    PRIMARY KEY,
  run_id      TEXT    NOT NULL,
  step        TEXT    NOT NULL,
  agent       TEXT    NOT NULL,
  created_at  BIGINT  NOT NULL,
  UNIQUE (run_id, step)
);

CREATE TABLE chat_leases (
  session_id TEXT    PRIMARY KEY,
  node_id    TEXT,                      -- NULL: free (no turn under way, or its node stopped cleanly)
  last_node  TEXT    NOT NULL,          -- the node that held it last (the one holding it, while held)
  epoch      BIGINT  NOT NULL,
  expires_at BIGINT  NOT NULL
);
CREATE INDEX chat_leases_by_node ON chat_leases (node_id) WHERE node_id IS NOT NULL;

-- Inside an append: the session must still be this node's at the epoch it took.
CREATE FUNCTION kw_chat_fence(p_node TEXT, p_session TEXT, p_epoch BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM chat_leases WHERE session_id = p_session AND node_id = p_node AND epoch = p_epoch FOR SHARE;
  IF NOT FOUND THEN
    RAISE EXCEPTION 'chat session % is no longer held by node % (another node took its turn over)', p_session, p_node USING ERRCODE = 'KW409';
  END IF;
END $$;
`;
