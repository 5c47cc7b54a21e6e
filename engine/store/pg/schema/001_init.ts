/**
 * Postgres migration 1: the run store's tables as SQLite's migrations 1, 3, 4 and 10 left
 * them — the event log, its projections (runs, step_attempts, approvals) and what triggers
 * keep — with the same columns, CHECKs and indexes. Times are ms since the epoch (BIGINT).
 * Append-only: never edit a shipped migration.
 */
/** This file: its name is the migration's version and name (see ../../schema/index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE TABLE events (
  gseq   BIGINT  PRIMARY KEY,          -- global order of commit (given out under the commit-order lock)
  run_id TEXT    NOT NULL,
  seq    INTEGER NOT NULL,
  type   TEXT    NOT NULL,
  v      INTEGER NOT NULL,
  at     BIGINT  NOT NULL,
  data   TEXT    NOT NULL,             -- JSON, byte for byte as SQLite keeps it
  UNIQUE (run_id, seq)
);

CREATE TABLE runs (
  id          TEXT PRIMARY KEY,
  horde_id    TEXT    NOT NULL,
  horde_hash  TEXT    NOT NULL,
  state       TEXT    NOT NULL CHECK (state IN ('queued', 'running', 'awaiting_input', 'succeeded', 'failed', 'cancelled')),
  provenance  TEXT    NOT NULL,
  input       TEXT    NOT NULL,
  created_at  BIGINT  NOT NULL,
  updated_at  BIGINT  NOT NULL,
  finished_at BIGINT,
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
  state       TEXT    NOT NULL CHECK (state IN ('running', 'passed', 'failed', 'interrupted', 'cancelled')),
  started_at  BIGINT  NOT NULL,
  finished_at BIGINT,
  duration_ms BIGINT,
  artifact    TEXT,
  summary     TEXT,
  error_code  TEXT,
  error       TEXT,
  pgid        INTEGER,
  token       TEXT,
  PRIMARY KEY (run_id, step, attempt)
);

CREATE TABLE approvals (
  run_id        TEXT    NOT NULL,
  seq           INTEGER NOT NULL,
  step          TEXT    NOT NULL,
  reason        TEXT    NOT NULL CHECK (reason IN ('confirm_command', 'outcome_unknown', 'review')),
  command       TEXT    NOT NULL,
  hash          TEXT    NOT NULL,
  state         TEXT    NOT NULL CHECK (state IN ('pending', 'granted', 'denied', 'void')),
  requested_at  BIGINT  NOT NULL,
  decided_at    BIGINT,
  decided_by    TEXT,
  deny_reason   TEXT,
  artifact      TEXT,
  PRIMARY KEY (run_id, seq)
);
CREATE INDEX approvals_pending ON approvals (state, run_id) WHERE state = 'pending';

CREATE TABLE trigger_state (
  horde_id       TEXT    NOT NULL,
  name           TEXT    NOT NULL,
  enabled        INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  last_scheduled BIGINT,
  next_fire_at   BIGINT,
  updated_at     BIGINT  NOT NULL,
  PRIMARY KEY (horde_id, name)
);

CREATE TABLE trigger_firings (
  id        BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  horde_id  TEXT    NOT NULL,
  name      TEXT    NOT NULL,
  key       TEXT    NOT NULL,
  at        BIGINT  NOT NULL,
  outcome   TEXT    NOT NULL CHECK (outcome IN ('started', 'skipped', 'queued', 'missed', 'overflow', 'failed')),
  run_id    TEXT,
  detail    TEXT,
  input     TEXT,
  UNIQUE (horde_id, name, key)
);
CREATE INDEX trigger_firings_by_trigger ON trigger_firings (horde_id, name, id);

CREATE TABLE watch_hashes (
  horde_id  TEXT    NOT NULL,
  name      TEXT    NOT NULL,
  path      TEXT    NOT NULL,
  hash      TEXT    NOT NULL,
  PRIMARY KEY (horde_id, name, path)
);
`;
