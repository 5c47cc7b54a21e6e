/**
 * Migration 14: the `send` step kind. A step of that kind delivers what it read through a
 * configured adapter (a Slack channel, a mail); `step_sends` records each delivery, keyed by
 * its run and step, before it is made (`sending`) and after (`sent`, `refused`, or `unknown` when the service did not answer), so an
 * attempt after a crash finds it instead of sending twice. Append-only: never edit a shipped migration.
 */
/** This file: its name is the migration's version and name (see index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE TABLE step_sends (
  id          INTEGER PRIMARY KEY,
  run_id      TEXT    NOT NULL,
  step        TEXT    NOT NULL,
  adapter     TEXT    NOT NULL,
  target      TEXT    NOT NULL,
  state       TEXT    NOT NULL CHECK (state IN ('sending', 'sent', 'refused', 'unknown')),
  bytes       INTEGER NOT NULL,
  sha256      TEXT    NOT NULL,
  message_id  TEXT,
  error       TEXT,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  UNIQUE (run_id, step)
);
`;
