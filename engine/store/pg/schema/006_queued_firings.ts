/**
 * Postgres migration 6: the firings a `queue_one` trigger holds back, found without
 * reading every firing of the trigger (as SQLite's migration 16). Overlap is decided
 * from the store, by the nodes together (docs/triggers.md).
 *
 * Append-only: never edit a shipped migration.
 */
/** This file: its name is the migration's version and name (see ../../schema/index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE INDEX trigger_firings_queued ON trigger_firings (horde_id, name, id) WHERE outcome = 'queued';
`;
