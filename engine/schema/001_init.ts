/** Migration 1: the event log and its projections. Append-only: never edit a shipped migration. */
/** This file: its name is the migration's version and name (see index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE TABLE events (
  gseq   INTEGER PRIMARY KEY,          -- global order of commit, for "all runs" subscribers
  run_id TEXT    NOT NULL,
  seq    INTEGER NOT NULL,             -- per-run sequence, from 1
  type   TEXT    NOT NULL,
  v      INTEGER NOT NULL,             -- the event type's version
  at     INTEGER NOT NULL,             -- engine clock, ms since epoch
  data   TEXT    NOT NULL,             -- JSON
  UNIQUE (run_id, seq)
);

CREATE TABLE runs (
  id          TEXT PRIMARY KEY,
  horde_id    TEXT    NOT NULL,
  horde_hash  TEXT    NOT NULL,
  state       TEXT    NOT NULL,
  provenance  TEXT    NOT NULL,
  input       TEXT    NOT NULL,        -- JSON
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  finished_at INTEGER,
  error_code  TEXT,
  error       TEXT,
  last_seq    INTEGER NOT NULL
);
CREATE INDEX runs_by_state ON runs (state, created_at);
CREATE INDEX runs_by_horde ON runs (horde_id, created_at);
CREATE INDEX runs_by_created ON runs (created_at);

CREATE TABLE step_attempts (
  run_id      TEXT    NOT NULL,
  step        TEXT    NOT NULL,
  attempt     INTEGER NOT NULL,
  state       TEXT    NOT NULL,        -- running | passed | failed | interrupted
  started_at  INTEGER NOT NULL,
  finished_at INTEGER,
  duration_ms INTEGER,
  artifact    TEXT,
  summary     TEXT,
  error_code  TEXT,
  error       TEXT,
  pgid        INTEGER,
  token       TEXT,
  PRIMARY KEY (run_id, step, attempt)
) WITHOUT ROWID;

CREATE TABLE approvals (
  run_id        TEXT    NOT NULL,
  seq           INTEGER NOT NULL,      -- the approval.requested event
  step          TEXT    NOT NULL,
  reason        TEXT    NOT NULL,      -- confirm_command | outcome_unknown
  command       TEXT    NOT NULL,      -- JSON {argv, cwd, env}
  hash          TEXT    NOT NULL,
  state         TEXT    NOT NULL,      -- pending | granted | denied | void
  requested_at  INTEGER NOT NULL,
  decided_at    INTEGER,
  decided_by    TEXT,
  deny_reason   TEXT,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE INDEX approvals_pending ON approvals (state, run_id) WHERE state = 'pending';
`;
