/** Migration 7: the vault's keyword index (FTS5) and what it knows of each note, to find what changed while kowalski was stopped. Append-only: never edit a shipped migration. */
/** This file: its name is the migration's version and name (see index.ts). */
export const source = import.meta.url;
// A note's FTS row has the rowid of its vault_notes row, so it is replaced or removed by rowid, never by a scan.
export const sql = `
CREATE TABLE vault_notes (
  id          INTEGER PRIMARY KEY,
  path        TEXT    NOT NULL UNIQUE,            -- relative to the vault, '/'-separated
  size_bytes  INTEGER NOT NULL,
  mtime_ms    INTEGER NOT NULL,
  sha256      TEXT    NOT NULL,
  title       TEXT    NOT NULL,
  indexed_at  INTEGER NOT NULL
);
CREATE VIRTUAL TABLE vault_fts USING fts5 (path UNINDEXED, title, body, tokenize = 'unicode61 remove_diacritics 2');
`;
