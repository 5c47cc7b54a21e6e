/**
 * Postgres migration 8: the vault's audit trail (`note_writes`, SQLite's migration 6) and
 * the Rookery's drafts (`rookery_drafts`, SQLite's migration 9), shared by the nodes: a
 * note written on one node is audited here and reverted from any other (its file lives
 * under `[store] files`), and a draft saved on one node is opened and edited on another.
 * The vault's search index stays in each node's data folder, brought up to date from
 * this table (engine/vault/search/write-follower.ts).
 *
 * The same columns, types, keys and CHECKs as SQLite's (test/integration/store.schemas.test.ts);
 * `by` is quoted (a reserved word here). The two links between writes are checked at the
 * commit (DEFERRABLE): `kowalski store copy` inserts a write before the revert that undid it.
 *
 * Append-only: never edit a shipped migration.
 */
/** This file: its name is the migration's version and name (see ../../schema/index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE TABLE note_writes (
  write_id      BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  at            BIGINT  NOT NULL,                 -- engine clock, ms since epoch (the intent)
  finished_at   BIGINT,
  op            TEXT    NOT NULL CHECK (op IN ('create', 'append', 'revert')),
  path          TEXT    NOT NULL,                 -- relative to the vault
  bytes_before  INTEGER NOT NULL,
  bytes_after   INTEGER NOT NULL,
  content       TEXT    NOT NULL,                 -- written (create, append) or taken away (revert)
  sha256_before TEXT,                             -- NULL: the note did not exist
  sha256_after  TEXT,                             -- NULL: the note no longer exists
  session_id    TEXT,
  agent         TEXT,
  trace_id      BIGINT,                           -- the model call that asked for it (a trace of the writing node's folder)
  call_key      TEXT UNIQUE,                      -- the tool call's durable key
  "by"          TEXT    NOT NULL,
  state         TEXT    NOT NULL CHECK (state IN ('pending', 'done', 'failed')),
  error         TEXT,                             -- JSON {code, message} when failed
  reverts       BIGINT REFERENCES note_writes (write_id) DEFERRABLE INITIALLY DEFERRED,
  reverted_by   BIGINT REFERENCES note_writes (write_id) DEFERRABLE INITIALLY DEFERRED,
  CHECK (op = 'revert' OR "by" <> 'agent' OR trace_id IS NOT NULL)
);
CREATE INDEX note_writes_by_path ON note_writes (path, write_id);
CREATE INDEX note_writes_pending ON note_writes (state) WHERE state = 'pending';
CREATE INDEX note_writes_by_session ON note_writes (session_id) WHERE session_id IS NOT NULL;

CREATE TABLE rookery_drafts (
  id            TEXT    PRIMARY KEY,
  session_id    TEXT    UNIQUE,                   -- the chat session building it (NULL: the editor only)
  draft         TEXT    NOT NULL,                 -- JSON HordeDraft, normalised
  stage         TEXT    NOT NULL CHECK (stage IN ('interview', 'proposed', 'born')),
  birth_sha256  TEXT,                             -- the draft content a birth was started for
  born_horde_id TEXT,
  born_result   TEXT,                             -- JSON BirthResult of the last birth
  born_at       BIGINT,                           -- engine clock, ms since epoch
  created_at    BIGINT  NOT NULL,
  updated_at    BIGINT  NOT NULL,
  CHECK ((born_at IS NULL) = (born_horde_id IS NULL))
);
CREATE INDEX rookery_drafts_by_update ON rookery_drafts (updated_at DESC, id DESC);
`;
