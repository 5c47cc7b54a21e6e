/**
 * What triggers keep on disk: the operator's switch per trigger, a cron trigger's
 * progress (the newest scheduled instant handled, the next one), every firing with its
 * outcome — unique per (horde, trigger, key), so a scheduled instant or a webhook
 * delivery id can start at most one run — and the content hashes of watched files.
 * A firing that starts a run is inserted in the same transaction as the run's
 * `run.created` event (see `startedWriter`), so a crash leaves both or neither.
 */
import type { RunStore } from './run-store.js';
import type { FiringOutcome, FiringRow, QueuedFiringRow, TriggerQueries } from './sql/triggers.js';
import type { TriggerFiring } from '../../contract/triggers.js';
export type { TriggerFiring } from '../../contract/triggers.js';

export type { FiringOutcome };

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

const toQueued = (r: QueuedFiringRow): QueuedFiring => ({
  hordeId: r.horde_id, name: r.name, key: r.key, input: r.input === null ? {} : (JSON.parse(r.input) as Record<string, string>), detail: r.detail,
});

const toFiring = (r: FiringRow): TriggerFiring => ({ at: r.at, key: r.key, outcome: r.outcome, runId: r.run_id, detail: r.detail });

export class TriggerStore {
  private readonly q: TriggerQueries;

  constructor(private readonly store: Pick<RunStore, 'triggers' | 'transaction' | 'tryLockKey' | 'unlockKey'>) {
    this.q = store.triggers;
  }

  state(hordeId: string, name: string): TriggerStateRow | undefined {
    const row = this.q.state(hordeId, name);
    return row === undefined ? undefined : { enabled: row.enabled === 1, updatedAt: row.updated_at, lastScheduled: row.last_scheduled, nextFireAt: row.next_fire_at };
  }

  setEnabled(hordeId: string, name: string, enabled: boolean, at: number): void {
    this.q.setEnabled(hordeId, name, enabled ? 1 : 0, at);
  }

  /** A cron trigger's progress; `enabled` is only used when the row is new. */
  setSchedule(hordeId: string, name: string, enabled: boolean, lastScheduled: number | null, nextFireAt: number | null, at: number): void {
    this.q.setSchedule(hordeId, name, enabled ? 1 : 0, lastScheduled, nextFireAt, at);
  }

  /** Record a firing that starts no run (skipped, missed, overflow, failed, queued). False when its key was already recorded. */
  record(f: FiringRecord): boolean {
    return this.q.insertFiring(f.hordeId, f.name, f.key, f.at, f.outcome, f.runId ?? null, f.detail ?? null, f.input === undefined ? null : JSON.stringify(f.input)) === 1;
  }

  /** Firings held back by `queue_one` whose runs have not started, oldest first. */
  queuedFirings(): QueuedFiring[] {
    return this.q.queued().map(toQueued);
  }

  /** The oldest firing of a trigger held back by `queue_one` whose run has not started. */
  queuedFiring(hordeId: string, name: string): QueuedFiring | undefined {
    const r = this.q.queuedOf(hordeId, name);
    return r === undefined ? undefined : toQueued(r);
  }

  /** The runs a trigger started that have not finished (parked ones included), oldest first: on a shared store, every node's. */
  activeRuns(hordeId: string, name: string): string[] {
    return this.q.activeRuns(hordeId, `trigger:${name}`);
  }

  /** A queued firing that will not start after all (its trigger was switched off or removed). */
  unqueue(hordeId: string, name: string, key: string, why: string): void {
    this.q.unqueue(hordeId, name, key, why);
  }

  /** Many records in one transaction (a catch-up's missed instants); keys already recorded are left as they are. */
  recordAllNew(records: readonly FiringRecord[]): void {
    if (records.length === 0) return;
    this.store.transaction(() => {
      for (const f of records) this.q.insertFiringIfNew(f.hordeId, f.name, f.key, f.at, f.outcome, f.runId ?? null, f.detail ?? null);
    })();
  }

  /** Hold a firing key while its run starts; false while another node of a shared store holds it. */
  tryLock(hordeId: string, name: string, key: string): boolean {
    return this.store.tryLockKey(`${hordeId}/${name}\n${key}`);
  }

  unlock(hordeId: string, name: string, key: string): void {
    this.store.unlockKey(`${hordeId}/${name}\n${key}`);
  }

  /** Hold a trigger while its overlap is decided and the run it allows starts; false while another node of a shared store holds it. */
  tryLockTrigger(hordeId: string, name: string): boolean {
    return this.store.tryLockKey(`${hordeId}/${name}`);
  }

  unlockTrigger(hordeId: string, name: string): void {
    this.store.unlockKey(`${hordeId}/${name}`);
  }

  firing(hordeId: string, name: string, key: string): TriggerFiring | undefined {
    const row = this.q.firingByKey(hordeId, name, key);
    return row === undefined ? undefined : toFiring(row);
  }

  lastFiring(hordeId: string, name: string): TriggerFiring | null {
    const row = this.q.lastFiring(hordeId, name);
    return row === undefined ? null : toFiring(row);
  }

  recentFirings(hordeId: string, name: string, limit: number): TriggerFiring[] {
    return this.q.recentFirings(hordeId, name, limit).map(toFiring);
  }

  /** The write a starting run's commit carries: its firing, `started` with the run's id (inside the run's transaction). */
  startedWriter(f: { hordeId: string; name: string; key: string; at: number; detail?: string }): (runId: string) => void {
    return (runId) => {
      this.q.startFiring(f.hordeId, f.name, f.key, f.at, runId, f.detail ?? null);
    };
  }

  /** The persisted hashes of one watch trigger, as the watcher's interface. */
  watchHashes(hordeId: string, name: string): { get(path: string): string | undefined; set(path: string, hash: string): void; remove(path: string): void; paths(): string[] } {
    return {
      get: (p) => this.q.watchHash(hordeId, name, p),
      set: (p, hash) => {
        this.q.setWatchHash(hordeId, name, p, hash);
      },
      remove: (p) => {
        this.q.removeWatchHash(hordeId, name, p);
      },
      paths: () => this.q.watchedPaths(hordeId, name),
    };
  }
}
