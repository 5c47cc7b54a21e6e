/**
 * The tables a run's life is written to — the event log, its projections (runs,
 * step_attempts, approvals) and what triggers keep — as one set of typed functions and
 * the transaction they run in. Two backends provide it: SQLite (the embedded default,
 * `sqliteRunStore`) and PostgreSQL, shared by several nodes (`pg/run-store.ts`). The
 * committer, the projections, the read queries and the trigger store are written against
 * this, never against a database handle.
 */
import type { Database } from 'better-sqlite3';
import { approvalReads, approvalWrites } from './sql/approvals.js';
import type { ApprovalReads, ApprovalWrites } from './sql/approvals.js';
import { attemptReads, attemptWrites } from './sql/attempts.js';
import type { AttemptReads, AttemptWrites } from './sql/attempts.js';
import { eventQueries } from './sql/events.js';
import type { EventQueries } from './sql/events.js';
import { runReads, runWrites } from './sql/runs.js';
import type { RunReads, RunWrites } from './sql/runs.js';
import { triggerQueries } from './sql/triggers.js';
import type { TriggerQueries } from './sql/triggers.js';

export interface RunStore {
  readonly kind: 'sqlite' | 'postgres';
  readonly events: EventQueries;
  readonly runReads: RunReads;
  readonly runWrites: RunWrites;
  readonly attemptReads: AttemptReads;
  readonly attemptWrites: AttemptWrites;
  readonly approvalReads: ApprovalReads;
  readonly approvalWrites: ApprovalWrites;
  readonly triggers: TriggerQueries;
  /** `fn` wrapped in one transaction of this store (as better-sqlite3's `db.transaction`): all its writes commit, or none. */
  transaction<A extends unknown[], T>(fn: (...args: A) => T): (...args: A) => T;
  /**
   * Firing keys being handled now, across every node of the store: false while another
   * node holds `key` (it is starting that firing's run). One node needs none: always true.
   */
  tryLockKey(key: string): boolean;
  unlockKey(key: string): void;
}

/** The run store on the engine's SQLite database. */
export function sqliteRunStore(db: Database): RunStore {
  return {
    kind: 'sqlite',
    events: eventQueries(db),
    runReads: runReads(db),
    runWrites: runWrites(db),
    attemptReads: attemptReads(db),
    attemptWrites: attemptWrites(db),
    approvalReads: approvalReads(db),
    approvalWrites: approvalWrites(db),
    triggers: triggerQueries(db),
    transaction: (fn) => db.transaction(fn),
    tryLockKey: () => true,
    unlockKey: () => undefined,
  };
}
