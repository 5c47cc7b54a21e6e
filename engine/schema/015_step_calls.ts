/**
 * Migration 15: an `mcp_call` step's answer. The tool's answer is recorded, keyed by its run,
 * step and attempt, as soon as the tool has given it and before the step goes on; an attempt
 * after a crash (its earlier attempt interrupted) gets that answer back instead of calling
 * the tool again: no answered call is asked again. Append-only: never edit a shipped migration.
 */
/** This file: its name is the migration's version and name (see index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE TABLE step_calls (
  id            INTEGER PRIMARY KEY,
  run_id        TEXT    NOT NULL,
  step          TEXT    NOT NULL,
  attempt       INTEGER NOT NULL,
  tool          TEXT    NOT NULL,
  args_sha256   TEXT    NOT NULL,
  content       TEXT    NOT NULL,
  structured    TEXT,
  from_attempt  INTEGER,
  created_at    INTEGER NOT NULL,
  UNIQUE (run_id, step, attempt)
);
`;
