/**
 * What triggers keep on disk: the operator's switch per trigger, a cron trigger's
 * progress (the newest scheduled instant handled, the next one), every firing with its
 * outcome — unique per (horde, trigger, key), so a scheduled instant or a webhook
 * delivery id can start at most one run — and the content hashes of watched files.
 * A firing that starts a run is inserted in the same transaction as the run's
 * `run.created` event (see `firingWriter`), so a crash leaves both or neither.
 */
import type Database from 'better-sqlite3';

export type FiringOutcome = 'started' | 'skipped' | 'queued' | 'missed' | 'overflow' | 'failed';

export interface TriggerFiring {
  at: number;
  key: string;
  outcome: FiringOutcome;
  runId: string | null;
  detail: string | null;
}

export interface FiringRecord {
  hordeId: string;
  name: string;
  key: string;
  at: number;
  outcome: FiringOutcome;
  runId?: string;
  detail?: string;
  /** A queued firing's run input, kept so it can start after a restart. */
  input?: Record<string, string>;
}

/** A firing held back by `queue_one` whose run has not started. */
export interface QueuedFiring {
  hordeId: string;
  name: string;
  key: string;
  input: Record<string, string>;
  detail: string | null;
}

export interface TriggerStateRow {
  enabled: boolean;
  /** When the switch or the schedule was last written. */
  updatedAt: number;
  lastScheduled: number | null;
  nextFireAt: number | null;
}

interface FiringRow {
  at: number;
  key: string;
  outcome: FiringOutcome;
  run_id: string | null;
  detail: string | null;
}

const toFiring = (r: FiringRow): TriggerFiring => ({ at: r.at, key: r.key, outcome: r.outcome, runId: r.run_id, detail: r.detail });

export class TriggerStore {
  private readonly stmts;

  constructor(private readonly db: Database.Database) {
    this.stmts = {
      state: db.prepare<[string, string], { enabled: number; last_scheduled: number | null; next_fire_at: number | null; updated_at: number }>(
        'SELECT enabled, last_scheduled, next_fire_at, updated_at FROM trigger_state WHERE horde_id = ? AND name = ?'),
      setEnabled: db.prepare<[string, string, number, number]>(
        `INSERT INTO trigger_state (horde_id, name, enabled, updated_at) VALUES (?, ?, ?, ?)
         ON CONFLICT (horde_id, name) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at`),
      setSchedule: db.prepare<[string, string, number, number | null, number | null, number]>(
        `INSERT INTO trigger_state (horde_id, name, enabled, last_scheduled, next_fire_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
         ON CONFLICT (horde_id, name) DO UPDATE SET last_scheduled = excluded.last_scheduled, next_fire_at = excluded.next_fire_at, updated_at = excluded.updated_at`),
      insertFiring: db.prepare<[string, string, string, number, string, string | null, string | null, string | null]>(
        'INSERT INTO trigger_firings (horde_id, name, key, at, outcome, run_id, detail, input) VALUES (?, ?, ?, ?, ?, ?, ?, ?)'),
      insertFiringIfNew: db.prepare<[string, string, string, number, string, string | null, string | null]>(
        'INSERT OR IGNORE INTO trigger_firings (horde_id, name, key, at, outcome, run_id, detail) VALUES (?, ?, ?, ?, ?, ?, ?)'),
      // A run started for a key: new, or the queued firing of that key now started.
      startFiring: db.prepare<[string, string, string, number, string, string | null]>(
        `INSERT INTO trigger_firings (horde_id, name, key, at, outcome, run_id, detail) VALUES (?, ?, ?, ?, 'started', ?, ?)
         ON CONFLICT (horde_id, name, key) DO UPDATE SET outcome = 'started', run_id = excluded.run_id, at = excluded.at, input = NULL
         WHERE trigger_firings.outcome = 'queued'`),
      queued: db.prepare<[], { horde_id: string; name: string; key: string; input: string | null; detail: string | null }>(
        "SELECT horde_id, name, key, input, detail FROM trigger_firings WHERE outcome = 'queued' ORDER BY id"),
      unqueue: db.prepare<[string, string, string, string]>(
        "UPDATE trigger_firings SET outcome = 'skipped', detail = ? WHERE horde_id = ? AND name = ? AND key = ? AND outcome = 'queued'"),
      firingByKey: db.prepare<[string, string, string], FiringRow>(
        'SELECT at, key, outcome, run_id, detail FROM trigger_firings WHERE horde_id = ? AND name = ? AND key = ?'),
      lastFiring: db.prepare<[string, string], FiringRow>(
        'SELECT at, key, outcome, run_id, detail FROM trigger_firings WHERE horde_id = ? AND name = ? ORDER BY id DESC LIMIT 1'),
      recentFirings: db.prepare<[string, string, number], FiringRow>(
        'SELECT at, key, outcome, run_id, detail FROM trigger_firings WHERE horde_id = ? AND name = ? ORDER BY id DESC LIMIT ?'),
      hashGet: db.prepare<[string, string, string], { hash: string }>('SELECT hash FROM watch_hashes WHERE horde_id = ? AND name = ? AND path = ?'),
      hashSet: db.prepare<[string, string, string, string]>(
        'INSERT INTO watch_hashes (horde_id, name, path, hash) VALUES (?, ?, ?, ?) ON CONFLICT (horde_id, name, path) DO UPDATE SET hash = excluded.hash'),
      hashRemove: db.prepare<[string, string, string]>('DELETE FROM watch_hashes WHERE horde_id = ? AND name = ? AND path = ?'),
      hashPaths: db.prepare<[string, string], { path: string }>('SELECT path FROM watch_hashes WHERE horde_id = ? AND name = ?'),
    };
  }

  state(hordeId: string, name: string): TriggerStateRow | undefined {
    const row = this.stmts.state.get(hordeId, name);
    return row === undefined ? undefined : { enabled: row.enabled === 1, updatedAt: row.updated_at, lastScheduled: row.last_scheduled, nextFireAt: row.next_fire_at };
  }

  setEnabled(hordeId: string, name: string, enabled: boolean, at: number): void {
    this.stmts.setEnabled.run(hordeId, name, enabled ? 1 : 0, at);
  }

  /** A cron trigger's progress; `enabled` is only used when the row is new. */
  setSchedule(hordeId: string, name: string, enabled: boolean, lastScheduled: number | null, nextFireAt: number | null, at: number): void {
    this.stmts.setSchedule.run(hordeId, name, enabled ? 1 : 0, lastScheduled, nextFireAt, at);
  }

  /** Record a firing that starts no run (skipped, missed, overflow, failed, queued). False when its key was already recorded. */
  record(f: FiringRecord): boolean {
    const r = this.stmts.insertFiring.run(f.hordeId, f.name, f.key, f.at, f.outcome, f.runId ?? null, f.detail ?? null, f.input === undefined ? null : JSON.stringify(f.input));
    return r.changes === 1;
  }

  /** Firings held back by `queue_one` whose runs have not started, oldest first. */
  queuedFirings(): QueuedFiring[] {
    return this.stmts.queued.all().map((r) => ({ hordeId: r.horde_id, name: r.name, key: r.key, input: r.input === null ? {} : (JSON.parse(r.input) as Record<string, string>), detail: r.detail }));
  }

  /** A queued firing that will not start after all (its trigger was switched off or removed). */
  unqueue(hordeId: string, name: string, key: string, why: string): void {
    this.stmts.unqueue.run(why, hordeId, name, key);
  }

  /** Many records in one transaction (a catch-up's missed instants); keys already recorded are left as they are. */
  recordAllNew(records: readonly FiringRecord[]): void {
    if (records.length === 0) return;
    this.db.transaction(() => {
      for (const f of records) this.stmts.insertFiringIfNew.run(f.hordeId, f.name, f.key, f.at, f.outcome, f.runId ?? null, f.detail ?? null);
    })();
  }

  firing(hordeId: string, name: string, key: string): TriggerFiring | undefined {
    const row = this.stmts.firingByKey.get(hordeId, name, key);
    return row === undefined ? undefined : toFiring(row);
  }

  lastFiring(hordeId: string, name: string): TriggerFiring | null {
    const row = this.stmts.lastFiring.get(hordeId, name);
    return row === undefined ? null : toFiring(row);
  }

  recentFirings(hordeId: string, name: string, limit: number): TriggerFiring[] {
    return this.stmts.recentFirings.all(hordeId, name, limit).map(toFiring);
  }

  /** The write a starting run's commit carries: its firing, `started` with the run's id (inside the run's transaction). */
  startedWriter(f: { hordeId: string; name: string; key: string; at: number; detail?: string }): (runId: string) => void {
    return (runId) => {
      this.stmts.startFiring.run(f.hordeId, f.name, f.key, f.at, runId, f.detail ?? null);
    };
  }

  /** The persisted hashes of one watch trigger, as the watcher's interface. */
  watchHashes(hordeId: string, name: string): { get(path: string): string | undefined; set(path: string, hash: string): void; remove(path: string): void; paths(): string[] } {
    return {
      get: (p) => this.stmts.hashGet.get(hordeId, name, p)?.hash,
      set: (p, hash) => {
        this.stmts.hashSet.run(hordeId, name, p, hash);
      },
      remove: (p) => {
        this.stmts.hashRemove.run(hordeId, name, p);
      },
      paths: () => this.stmts.hashPaths.all(hordeId, name).map((r) => r.path),
    };
  }
}
