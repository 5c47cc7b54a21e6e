/**
 * Migration 12: plugins' grants. `plugin_grants` holds the grant in force of each plugin,
 * keyed by its name, version and the sha256 of its canonical permissions: a plugin whose
 * version or permissions differ from its row is pending again. `plugin_grant_audit` keeps
 * every grant and revoke (who, when, what) and is never updated. Append-only: never edit a
 * shipped migration.
 */
/** This file: its name is the migration's version and name (see index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE TABLE plugin_grants (
  name              TEXT    PRIMARY KEY,
  version           TEXT    NOT NULL,
  permissions_hash  TEXT    NOT NULL,
  permissions       TEXT    NOT NULL,              -- JSON, canonical: what was granted
  granted_by        TEXT    NOT NULL,
  granted_at        INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE plugin_grant_audit (
  id                INTEGER PRIMARY KEY,
  name              TEXT    NOT NULL,
  action            TEXT    NOT NULL CHECK (action IN ('grant', 'revoke')),
  version           TEXT    NOT NULL,
  permissions_hash  TEXT    NOT NULL,
  permissions       TEXT    NOT NULL,
  by                TEXT    NOT NULL,
  at                INTEGER NOT NULL
);
CREATE INDEX plugin_grant_audit_name ON plugin_grant_audit (name, id);
`;
