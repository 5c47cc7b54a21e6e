/** What triggers keep, on Postgres: the same functions as ../../sql/triggers.ts. */
import type { FiringRow, QueuedFiringRow, TriggerQueries, TriggerStateRecord } from '../../sql/triggers.js';
import type { PgSession } from '../session.js';

const FIRING = 'SELECT at, key, outcome, run_id, detail FROM trigger_firings';

export function pgTriggerQueries(s: PgSession): TriggerQueries {
  return {
    state: (hordeId, name) => s.get<TriggerStateRecord>(
      'SELECT enabled, last_scheduled, next_fire_at, updated_at FROM trigger_state WHERE horde_id = $1 AND name = $2', [hordeId, name]),
    setEnabled: (hordeId, name, enabled, at) => s.write(
      `INSERT INTO trigger_state (horde_id, name, enabled, updated_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (horde_id, name) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at`, [hordeId, name, enabled, at]),
    setSchedule: (hordeId, name, enabled, lastScheduled, nextFireAt, at) => s.write(
      `INSERT INTO trigger_state (horde_id, name, enabled, last_scheduled, next_fire_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (horde_id, name) DO UPDATE SET last_scheduled = excluded.last_scheduled, next_fire_at = excluded.next_fire_at, updated_at = excluded.updated_at`,
      [hordeId, name, enabled, lastScheduled, nextFireAt, at]),
    // SQLite's plain INSERT fails on a known key; the caller reads the 0 rows this one changes instead (`record` returns false).
    insertFiring: (hordeId, name, key, at, outcome, runId, detail, input) => s.count(
      `INSERT INTO trigger_firings (horde_id, name, key, at, outcome, run_id, detail, input) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (horde_id, name, key) DO NOTHING`, [hordeId, name, key, at, outcome, runId, detail, input]),
    insertFiringIfNew: (hordeId, name, key, at, outcome, runId, detail) => s.write(
      `INSERT INTO trigger_firings (horde_id, name, key, at, outcome, run_id, detail) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (horde_id, name, key) DO NOTHING`, [hordeId, name, key, at, outcome, runId, detail]),
    startFiring: (hordeId, name, key, at, runId, detail) => s.write(
      `INSERT INTO trigger_firings (horde_id, name, key, at, outcome, run_id, detail) VALUES ($1, $2, $3, $4, 'started', $5, $6)
       ON CONFLICT (horde_id, name, key) DO UPDATE SET outcome = 'started', run_id = excluded.run_id, at = excluded.at, input = NULL
       WHERE trigger_firings.outcome = 'queued'`, [hordeId, name, key, at, runId, detail]),
    queued: () => s.all<QueuedFiringRow>("SELECT horde_id, name, key, input, detail FROM trigger_firings WHERE outcome = 'queued' ORDER BY id"),
    queuedOf: (hordeId, name) => s.get<QueuedFiringRow>(
      "SELECT horde_id, name, key, input, detail FROM trigger_firings WHERE horde_id = $1 AND name = $2 AND outcome = 'queued' ORDER BY id LIMIT 1", [hordeId, name]),
    activeRuns: (hordeId, provenance) => s.all<{ id: string }>(
      "SELECT id FROM runs WHERE state IN ('queued', 'running', 'awaiting_input') AND horde_id = $1 AND provenance = $2 ORDER BY created_at", [hordeId, provenance]).map((r) => r.id),
    unqueue: (hordeId, name, key, detail) => s.write(
      "UPDATE trigger_firings SET outcome = 'skipped', detail = $1 WHERE horde_id = $2 AND name = $3 AND key = $4 AND outcome = 'queued'", [detail, hordeId, name, key]),
    firingByKey: (hordeId, name, key) => s.get<FiringRow>(`${FIRING} WHERE horde_id = $1 AND name = $2 AND key = $3`, [hordeId, name, key]),
    lastFiring: (hordeId, name) => s.get<FiringRow>(`${FIRING} WHERE horde_id = $1 AND name = $2 ORDER BY id DESC LIMIT 1`, [hordeId, name]),
    recentFirings: (hordeId, name, limit) => s.all<FiringRow>(`${FIRING} WHERE horde_id = $1 AND name = $2 ORDER BY id DESC LIMIT $3`, [hordeId, name, limit]),
    watchHash: (hordeId, name, path) => s.get<{ hash: string }>('SELECT hash FROM watch_hashes WHERE horde_id = $1 AND name = $2 AND path = $3', [hordeId, name, path])?.hash,
    setWatchHash: (hordeId, name, path, hash) => s.write(
      'INSERT INTO watch_hashes (horde_id, name, path, hash) VALUES ($1, $2, $3, $4) ON CONFLICT (horde_id, name, path) DO UPDATE SET hash = excluded.hash',
      [hordeId, name, path, hash]),
    removeWatchHash: (hordeId, name, path) => s.write('DELETE FROM watch_hashes WHERE horde_id = $1 AND name = $2 AND path = $3', [hordeId, name, path]),
    watchedPaths: (hordeId, name) => s.all<{ path: string }>('SELECT path FROM watch_hashes WHERE horde_id = $1 AND name = $2', [hordeId, name]).map((r) => r.path),
  };
}
