/** Migration 6: the vault's audit trail — one row per write an agent (or a revert) makes to a note. Append-only: never edit a shipped migration. */
/** This file: its name is the migration's version and name (see index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE TABLE note_writes (
  write_id      INTEGER PRIMARY KEY AUTOINCREMENT,
  at            INTEGER NOT NULL,                 -- engine clock, ms since epoch (the intent)
  finished_at   INTEGER,
  op            TEXT    NOT NULL CHECK (op IN ('create', 'append', 'revert')),
  path          TEXT    NOT NULL,                 -- relative to the vault
  bytes_before  INTEGER NOT NULL,
  bytes_after   INTEGER NOT NULL,
  content       TEXT    NOT NULL,                 -- written (create, append) or taken away (revert)
  sha256_before TEXT,                             -- NULL: the note did not exist
  sha256_after  TEXT,                             -- NULL: the note no longer exists
  session_id    TEXT,
  agent         TEXT,
  trace_id      INTEGER,                          -- the model call that asked for it
  call_key      TEXT UNIQUE,                      -- the tool call's durable key
  by            TEXT    NOT NULL,
  state         TEXT    NOT NULL CHECK (state IN ('pending', 'done', 'failed')),
  error         TEXT,                             -- JSON {code, message} when failed
  reverts       INTEGER REFERENCES note_writes (write_id),
  reverted_by   INTEGER REFERENCES note_writes (write_id),
  CHECK (op = 'revert' OR by <> 'agent' OR trace_id IS NOT NULL)
);
CREATE INDEX note_writes_by_path ON note_writes (path, write_id);
CREATE INDEX note_writes_pending ON note_writes (state) WHERE state = 'pending';
CREATE INDEX note_writes_by_session ON note_writes (session_id) WHERE session_id IS NOT NULL;
`;
