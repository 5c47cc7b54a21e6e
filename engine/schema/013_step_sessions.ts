/**
 * Migration 13: the `agent` step kind. A step of that kind runs one turn of a team profile
 * in a chat session of its own; `step_sessions` links the session to its run and step, so
 * the run's budget counts the turn's model calls, the Run page finds its delegation tree and
 * an attempt after a crash goes on with the same turn. Append-only: never edit a shipped migration.
 */
/** This file: its name is the migration's version and name (see index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE TABLE step_sessions (
  session_id  TEXT    PRIMARY KEY,
  run_id      TEXT    NOT NULL,
  step        TEXT    NOT NULL,
  agent       TEXT    NOT NULL,
  created_at  INTEGER NOT NULL,
  UNIQUE (run_id, step)
);
`;
