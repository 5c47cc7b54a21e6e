/**
 * Postgres migration 4: which data folder each node ran from (`folder_id`, the random id
 * kept in the folder's `kowalski.folder-id`). A node that starts on a folder holds the
 * folder's lock, so an earlier node of the same folder that never stopped cleanly is
 * dead: its leases are expired at once and the new node takes its runs back, as a
 * restart on SQLite would, instead of waiting for them to lapse.
 *
 * Append-only: never edit a shipped migration.
 */
/** This file: its name is the migration's version and name (see ../../schema/index.ts). */
export const source = import.meta.url;
export const sql = `
ALTER TABLE nodes ADD COLUMN folder_id TEXT;
`;
