/** Migration 3: triggers — the operator's switches, cron progress, every firing, watched files' hashes. Append-only: never edit a shipped migration. */
/** This file: its name is the migration's version and name (see index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE TABLE trigger_state (
  horde_id      TEXT    NOT NULL,
  name          TEXT    NOT NULL,
  enabled       INTEGER NOT NULL,       -- the operator's switch (absent row: built-in/imported off, else horde.md's enabled)
  last_scheduled INTEGER,               -- cron: the newest scheduled instant handled (fired, skipped or missed)
  next_fire_at  INTEGER,                -- cron: the next scheduled instant, persisted before it can fire
  updated_at    INTEGER NOT NULL,
  PRIMARY KEY (horde_id, name)
) WITHOUT ROWID;

CREATE TABLE trigger_firings (
  id        INTEGER PRIMARY KEY,
  horde_id  TEXT    NOT NULL,
  name      TEXT    NOT NULL,
  key       TEXT    NOT NULL,           -- cron: the scheduled instant; webhook: the delivery id; watch: path + content hash
  at        INTEGER NOT NULL,           -- when it was handled
  outcome   TEXT    NOT NULL,           -- started | skipped | queued | missed | overflow | failed
  run_id    TEXT,
  detail    TEXT,
  input     TEXT,                       -- JSON: what a queued firing starts its run with
  UNIQUE (horde_id, name, key)
);
CREATE INDEX trigger_firings_by_trigger ON trigger_firings (horde_id, name, id);

CREATE TABLE watch_hashes (
  horde_id  TEXT    NOT NULL,
  name      TEXT    NOT NULL,
  path      TEXT    NOT NULL,
  hash      TEXT    NOT NULL,
  PRIMARY KEY (horde_id, name, path)
) WITHOUT ROWID;
`;
