/**
 * Migration 9: the Rookery's drafts — one row per horde being built (in the app's editor, or in a
 * chat session with the `builder` agent: that session's id, at most one draft each). The draft is
 * plain JSON (engine/rookery/types.ts); `birth_sha256` is the hash of the draft content a birth was
 * started for (set before the folder is written), `born_*` what it wrote once it did. Append-only:
 * never edit a shipped migration.
 */
/** This file: its name is the migration's version and name (see index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE TABLE rookery_drafts (
  id            TEXT    PRIMARY KEY,
  session_id    TEXT    UNIQUE,                   -- the chat session building it (NULL: the editor only)
  draft         TEXT    NOT NULL,                 -- JSON HordeDraft, normalised
  stage         TEXT    NOT NULL CHECK (stage IN ('interview', 'proposed', 'born')),
  birth_sha256  TEXT,                             -- the draft content a birth was started for
  born_horde_id TEXT,
  born_result   TEXT,                             -- JSON BirthResult of the last birth
  born_at       INTEGER,                          -- engine clock, ms since epoch
  created_at    INTEGER NOT NULL,
  updated_at    INTEGER NOT NULL,
  CHECK ((born_at IS NULL) = (born_horde_id IS NULL))
);
CREATE INDEX rookery_drafts_by_update ON rookery_drafts (updated_at DESC, id DESC);
`;
