/**
 * Migration 4: CHECK constraints on the state columns — runs.state, step_attempts.state,
 * approvals.reason and .state, trigger_state.enabled, trigger_firings.outcome — so a bad
 * value is refused by the database itself. SQLite cannot add a CHECK to a table, so each
 * table is rebuilt the SQLite way (create the new one, copy every row, drop, rename,
 * recreate its indexes), inside the migration's transaction. No table has foreign keys.
 *
 * The lists are frozen here, as every shipped migration is; they are the TypeScript unions
 * of the day (RunState, AttemptRow['state'], ApprovalReason, ApprovalRow['state'],
 * FiringOutcome). test/unit/engine.schema.test.ts enumerates each union (the type checker
 * fails it when one grows) and proves the schema accepts every value and refuses others: a
 * new value needs a new migration that widens the CHECK. Append-only: never edit a shipped
 * migration.
 */
/** This file: its name is the migration's version and name (see index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE TABLE runs_new (
  id          TEXT PRIMARY KEY,
  horde_id    TEXT    NOT NULL,
  horde_hash  TEXT    NOT NULL,
  state       TEXT    NOT NULL CHECK (state IN ('queued', 'running', 'awaiting_input', 'succeeded', 'failed', 'cancelled')),
  provenance  TEXT    NOT NULL,
  input       TEXT    NOT NULL,
  created_at  INTEGER NOT NULL,
  updated_at  INTEGER NOT NULL,
  finished_at INTEGER,
  error_code  TEXT,
  error       TEXT,
  last_seq    INTEGER NOT NULL
);
INSERT INTO runs_new (rowid, id, horde_id, horde_hash, state, provenance, input, created_at, updated_at, finished_at, error_code, error, last_seq)
  SELECT rowid, id, horde_id, horde_hash, state, provenance, input, created_at, updated_at, finished_at, error_code, error, last_seq FROM runs;
DROP TABLE runs;
ALTER TABLE runs_new RENAME TO runs;
CREATE INDEX runs_by_state ON runs (state, created_at);
CREATE INDEX runs_by_horde ON runs (horde_id, created_at);
CREATE INDEX runs_by_created ON runs (created_at);

CREATE TABLE step_attempts_new (
  run_id      TEXT    NOT NULL,
  step        TEXT    NOT NULL,
  attempt     INTEGER NOT NULL,
  state       TEXT    NOT NULL CHECK (state IN ('running', 'passed', 'failed', 'interrupted', 'cancelled')),
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
INSERT INTO step_attempts_new (run_id, step, attempt, state, started_at, finished_at, duration_ms, artifact, summary, error_code, error, pgid, token)
  SELECT run_id, step, attempt, state, started_at, finished_at, duration_ms, artifact, summary, error_code, error, pgid, token FROM step_attempts;
DROP TABLE step_attempts;
ALTER TABLE step_attempts_new RENAME TO step_attempts;

CREATE TABLE approvals_new (
  run_id        TEXT    NOT NULL,
  seq           INTEGER NOT NULL,
  step          TEXT    NOT NULL,
  reason        TEXT    NOT NULL CHECK (reason IN ('confirm_command', 'outcome_unknown')),
  command       TEXT    NOT NULL,
  hash          TEXT    NOT NULL,
  state         TEXT    NOT NULL CHECK (state IN ('pending', 'granted', 'denied', 'void')),
  requested_at  INTEGER NOT NULL,
  decided_at    INTEGER,
  decided_by    TEXT,
  deny_reason   TEXT,
  PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
INSERT INTO approvals_new (run_id, seq, step, reason, command, hash, state, requested_at, decided_at, decided_by, deny_reason)
  SELECT run_id, seq, step, reason, command, hash, state, requested_at, decided_at, decided_by, deny_reason FROM approvals;
DROP TABLE approvals;
ALTER TABLE approvals_new RENAME TO approvals;
CREATE INDEX approvals_pending ON approvals (state, run_id) WHERE state = 'pending';

CREATE TABLE trigger_state_new (
  horde_id       TEXT    NOT NULL,
  name           TEXT    NOT NULL,
  enabled        INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  last_scheduled INTEGER,
  next_fire_at   INTEGER,
  updated_at     INTEGER NOT NULL,
  PRIMARY KEY (horde_id, name)
) WITHOUT ROWID;
INSERT INTO trigger_state_new (horde_id, name, enabled, last_scheduled, next_fire_at, updated_at)
  SELECT horde_id, name, enabled, last_scheduled, next_fire_at, updated_at FROM trigger_state;
DROP TABLE trigger_state;
ALTER TABLE trigger_state_new RENAME TO trigger_state;

CREATE TABLE trigger_firings_new (
  id        INTEGER PRIMARY KEY,
  horde_id  TEXT    NOT NULL,
  name      TEXT    NOT NULL,
  key       TEXT    NOT NULL,
  at        INTEGER NOT NULL,
  outcome   TEXT    NOT NULL CHECK (outcome IN ('started', 'skipped', 'queued', 'missed', 'overflow', 'failed')),
  run_id    TEXT,
  detail    TEXT,
  input     TEXT,
  UNIQUE (horde_id, name, key)
);
INSERT INTO trigger_firings_new (id, horde_id, name, key, at, outcome, run_id, detail, input)
  SELECT id, horde_id, name, key, at, outcome, run_id, detail, input FROM trigger_firings;
DROP TABLE trigger_firings;
ALTER TABLE trigger_firings_new RENAME TO trigger_firings;
CREATE INDEX trigger_firings_by_trigger ON trigger_firings (horde_id, name, id);
`;
