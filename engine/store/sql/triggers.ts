/**
 * What triggers keep (`trigger_state`, `trigger_firings`, `watch_hashes`, migration 3,
 * CHECKs since migration 4): one typed function per query, positional parameters, typed
 * rows. See engine/store/triggers.ts.
 */
import type { Database } from 'better-sqlite3';
import type { FiringOutcome } from '../../../contract/triggers.js';
export type { FiringOutcome } from '../../../contract/triggers.js';

/** A row of `trigger_state` as read. */
export interface TriggerStateRecord {
  /** 1 on, 0 off. */
  enabled: number;
  last_scheduled: number | null;
  next_fire_at: number | null;
  updated_at: number;
}

/** A row of `trigger_firings` as read. */
export interface FiringRow {
  at: number;
  key: string;
  outcome: FiringOutcome;
  run_id: string | null;
  detail: string | null;
}

/** A queued firing as read: `input` is JSON of the run's input, or null. */
export interface QueuedFiringRow {
  horde_id: string;
  name: string;
  key: string;
  input: string | null;
  detail: string | null;
}

export function triggerQueries(db: Database) {
  const state = db.prepare<[hordeId: string, name: string], TriggerStateRecord>(
    'SELECT enabled, last_scheduled, next_fire_at, updated_at FROM trigger_state WHERE horde_id = ? AND name = ?');
  const setEnabled = db.prepare<[hordeId: string, name: string, enabled: number, at: number]>(
    `INSERT INTO trigger_state (horde_id, name, enabled, updated_at) VALUES (?, ?, ?, ?)
     ON CONFLICT (horde_id, name) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at`);
  const setSchedule = db.prepare<[hordeId: string, name: string, enabled: number, lastScheduled: number | null, nextFireAt: number | null, at: number]>(
    `INSERT INTO trigger_state (horde_id, name, enabled, last_scheduled, next_fire_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
     ON CONFLICT (horde_id, name) DO UPDATE SET last_scheduled = excluded.last_scheduled, next_fire_at = excluded.next_fire_at, updated_at = excluded.updated_at`);
  const insertFiring = db.prepare<[hordeId: string, name: string, key: string, at: number, outcome: FiringOutcome, runId: string | null, detail: string | null, input: string | null]>(
    'INSERT INTO trigger_firings (horde_id, name, key, at, outcome, run_id, detail, input) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const insertFiringIfNew = db.prepare<[hordeId: string, name: string, key: string, at: number, outcome: FiringOutcome, runId: string | null, detail: string | null]>(
    'INSERT OR IGNORE INTO trigger_firings (horde_id, name, key, at, outcome, run_id, detail) VALUES (?, ?, ?, ?, ?, ?, ?)');
  // A run started for a key: new, or the queued firing of that key now started.
  const startFiring = db.prepare<[hordeId: string, name: string, key: string, at: number, runId: string, detail: string | null]>(
    `INSERT INTO trigger_firings (horde_id, name, key, at, outcome, run_id, detail) VALUES (?, ?, ?, ?, 'started', ?, ?)
     ON CONFLICT (horde_id, name, key) DO UPDATE SET outcome = 'started', run_id = excluded.run_id, at = excluded.at, input = NULL
     WHERE trigger_firings.outcome = 'queued'`);
  const queuedOf = db.prepare<[hordeId: string, name: string], QueuedFiringRow>(
    "SELECT horde_id, name, key, input, detail FROM trigger_firings WHERE horde_id = ? AND name = ? AND outcome = 'queued' ORDER BY id LIMIT 1");
  const activeRuns = db.prepare<[hordeId: string, provenance: string], string>(
    "SELECT id FROM runs WHERE state IN ('queued', 'running', 'awaiting_input') AND horde_id = ? AND provenance = ? ORDER BY created_at").pluck();
  const queued = db.prepare<[], QueuedFiringRow>("SELECT horde_id, name, key, input, detail FROM trigger_firings WHERE outcome = 'queued' ORDER BY id");
  const unqueue = db.prepare<[detail: string, hordeId: string, name: string, key: string]>(
    "UPDATE trigger_firings SET outcome = 'skipped', detail = ? WHERE horde_id = ? AND name = ? AND key = ? AND outcome = 'queued'");
  const firingByKey = db.prepare<[hordeId: string, name: string, key: string], FiringRow>(
    'SELECT at, key, outcome, run_id, detail FROM trigger_firings WHERE horde_id = ? AND name = ? AND key = ?');
  const lastFiring = db.prepare<[hordeId: string, name: string], FiringRow>(
    'SELECT at, key, outcome, run_id, detail FROM trigger_firings WHERE horde_id = ? AND name = ? ORDER BY id DESC LIMIT 1');
  const recentFirings = db.prepare<[hordeId: string, name: string, limit: number], FiringRow>(
    'SELECT at, key, outcome, run_id, detail FROM trigger_firings WHERE horde_id = ? AND name = ? ORDER BY id DESC LIMIT ?');
  const hashGet = db.prepare<[hordeId: string, name: string, path: string], string>('SELECT hash FROM watch_hashes WHERE horde_id = ? AND name = ? AND path = ?').pluck();
  const hashSet = db.prepare<[hordeId: string, name: string, path: string, hash: string]>(
    'INSERT INTO watch_hashes (horde_id, name, path, hash) VALUES (?, ?, ?, ?) ON CONFLICT (horde_id, name, path) DO UPDATE SET hash = excluded.hash');
  const hashRemove = db.prepare<[hordeId: string, name: string, path: string]>('DELETE FROM watch_hashes WHERE horde_id = ? AND name = ? AND path = ?');
  const hashPaths = db.prepare<[hordeId: string, name: string], string>('SELECT path FROM watch_hashes WHERE horde_id = ? AND name = ?').pluck();
  return {
    state: (hordeId: string, name: string): TriggerStateRecord | undefined => state.get(hordeId, name),
    /** The operator's switch (`enabled` 1 or 0). */
    setEnabled: (hordeId: string, name: string, enabled: number, at: number): void => void setEnabled.run(hordeId, name, enabled, at),
    /** A cron trigger's progress; `enabled` is only written when the row is new. */
    setSchedule: (hordeId: string, name: string, enabled: number, lastScheduled: number | null, nextFireAt: number | null, at: number): void =>
      void setSchedule.run(hordeId, name, enabled, lastScheduled, nextFireAt, at),
    /** A firing; returns the rows changed. */
    insertFiring: (hordeId: string, name: string, key: string, at: number, outcome: FiringOutcome, runId: string | null, detail: string | null, input: string | null): number =>
      insertFiring.run(hordeId, name, key, at, outcome, runId, detail, input).changes,
    /** A firing, unless its key was recorded before. */
    insertFiringIfNew: (hordeId: string, name: string, key: string, at: number, outcome: FiringOutcome, runId: string | null, detail: string | null): void =>
      void insertFiringIfNew.run(hordeId, name, key, at, outcome, runId, detail),
    /** The key's firing `started` with `runId`: a new row, or its queued one. */
    startFiring: (hordeId: string, name: string, key: string, at: number, runId: string, detail: string | null): void =>
      void startFiring.run(hordeId, name, key, at, runId, detail),
    /** Queued firings, oldest first. */
    queued: (): QueuedFiringRow[] => queued.all(),
    /** The oldest queued firing of one trigger. */
    queuedOf: (hordeId: string, name: string): QueuedFiringRow | undefined => queuedOf.get(hordeId, name),
    /** The runs of a horde with this provenance (a trigger's: `trigger:<name>`) that have not finished, parked ones included, oldest first. */
    activeRuns: (hordeId: string, provenance: string): string[] => activeRuns.all(hordeId, provenance),
    /** A queued firing skipped after all, `detail` saying why. */
    unqueue: (hordeId: string, name: string, key: string, detail: string): void => void unqueue.run(detail, hordeId, name, key),
    firingByKey: (hordeId: string, name: string, key: string): FiringRow | undefined => firingByKey.get(hordeId, name, key),
    lastFiring: (hordeId: string, name: string): FiringRow | undefined => lastFiring.get(hordeId, name),
    /** Newest first. */
    recentFirings: (hordeId: string, name: string, limit: number): FiringRow[] => recentFirings.all(hordeId, name, limit),
    watchHash: (hordeId: string, name: string, path: string): string | undefined => hashGet.get(hordeId, name, path),
    setWatchHash: (hordeId: string, name: string, path: string, hash: string): void => void hashSet.run(hordeId, name, path, hash),
    removeWatchHash: (hordeId: string, name: string, path: string): void => void hashRemove.run(hordeId, name, path),
    watchedPaths: (hordeId: string, name: string): string[] => hashPaths.all(hordeId, name),
  };
}

export type TriggerQueries = ReturnType<typeof triggerQueries>;
