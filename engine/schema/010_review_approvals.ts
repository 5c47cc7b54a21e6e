/**
 * Migration 10: the `review` step kind. approvals.reason gains 'review' (a human gate on
 * the previous step's artifact) and approvals gains `artifact`, the workdir-relative file
 * a review shows (NULL for a command's approval); its `hash` is then that file's sha256.
 * SQLite cannot widen a CHECK, so the table is rebuilt as migration 4 did it, inside the
 * migration's transaction. Append-only: never edit a shipped migration.
 */
/** This file: its name is the migration's version and name (see index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE TABLE approvals_new (
  run_id        TEXT    NOT NULL,
  seq           INTEGER NOT NULL,
  step          TEXT    NOT NULL,
  reason        TEXT    NOT NULL CHECK (reason IN ('confirm_command', 'outcome_unknown', 'review')),
  command       TEXT    NOT NULL,
  hash          TEXT    NOT NULL,
  state         TEXT    NOT NULL CHECK (state IN ('pending', 'granted', 'denied', 'void')),
  requested_at  INTEGER NOT NULL,
  decided_at    INTEGER,
  decided_by    TEXT,
  deny_reason   TEXT,
  artifact      TEXT,                             -- a review's file, workdir-relative
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
INSERT INTO approvals_new (run_id, seq, step, reason, command, hash, state, requested_at, decided_at, decided_by, deny_reason)
  SELECT run_id, seq, step, reason, command, hash, state, requested_at, decided_at, decided_by, deny_reason FROM approvals;
DROP TABLE approvals;
ALTER TABLE approvals_new RENAME TO approvals;
CREATE INDEX approvals_pending ON approvals (state, run_id) WHERE state = 'pending';
`;
