/**
 * Migration 16: the firings a `queue_one` trigger holds back, found without reading every
 * firing of the trigger. Overlap is decided from the store (so that the nodes of a shared
 * store decide it together, docs/triggers.md): each firing of a `queue_one` trigger while
 * its run is active, and each end of a trigger's run, asks whether one already waits.
 * Append-only: never edit a shipped migration.
 */
/** This file: its name is the migration's version and name (see index.ts). */
export const source = import.meta.url;
export const sql = `
CREATE INDEX trigger_firings_queued ON trigger_firings (horde_id, name, id) WHERE outcome = 'queued';
`;
