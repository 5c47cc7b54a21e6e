/** Migration 2: one row per model provider call, and how each model calls tools. Append-only: never edit a shipped migration. */
/** This file: its name is the migration's version and name (see index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE TABLE traces (
  id            INTEGER PRIMARY KEY,
  run_id        TEXT    NOT NULL,
  step          TEXT    NOT NULL,
  attempt       INTEGER NOT NULL,
  seq           INTEGER NOT NULL,       -- the call's number within the step attempt, from 1
  provider      TEXT    NOT NULL,
  model         TEXT    NOT NULL,
  mode          TEXT    NOT NULL,       -- native | text
  input_tokens  INTEGER NOT NULL,
  output_tokens INTEGER NOT NULL,
  cost_usd      REAL,                   -- NULL: the model's price is unknown
  latency_ms    INTEGER NOT NULL,
  attempts      INTEGER NOT NULL,       -- HTTP attempts (1 + retries)
  tool_calls    INTEGER NOT NULL,
  error_code    TEXT,
  error         TEXT,
  started_at    INTEGER NOT NULL,
  data          TEXT    NOT NULL        -- JSON: messages, tools, completion, tool calls with their results
);
CREATE INDEX traces_by_run ON traces (run_id, id);

CREATE TABLE model_tool_modes (
  model      TEXT PRIMARY KEY,          -- provider:model
  mode       TEXT    NOT NULL,          -- native | text
  learned_at INTEGER NOT NULL
);
`;
