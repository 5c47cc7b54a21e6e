/**
 * The run store on PostgreSQL (`[store] url`): the same typed functions as SQLite's, on
 * one connection held by a thread (sync-pg.ts), so the engine's synchronous store
 * contract holds. A group commit is two round trips however many runs it carries
 * (session.ts).
 */
import type { RunStore } from '../run-store.js';
import type { PgSession } from './session.js';
import { pgApprovalReads, pgApprovalWrites } from './sql/approvals.js';
import { pgAttemptReads, pgAttemptWrites } from './sql/attempts.js';
import { pgEventQueries } from './sql/events.js';
import { pgRunReads, pgRunWrites } from './sql/runs.js';
import { pgTriggerQueries } from './sql/triggers.js';

/** The advisory lock class of firing keys ("kwtr" in ASCII). */
export const KEY_LOCK_CLASS = 0x6b777472;

export function postgresRunStore(s: PgSession): RunStore {
  return {
    kind: 'postgres',
    events: pgEventQueries(s),
    runReads: pgRunReads(s),
    runWrites: pgRunWrites(s),
    attemptReads: pgAttemptReads(s),
    attemptWrites: pgAttemptWrites(s),
    approvalReads: pgApprovalReads(s),
    approvalWrites: pgApprovalWrites(s),
    triggers: pgTriggerQueries(s),
    transaction: (fn) => s.transaction(fn),
    // A session-level advisory lock (class "kwtr", the key's hash): released by unlockKey, or by the server when the node's connection ends.
    tryLockKey: (key) => s.get<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [KEY_LOCK_CLASS, key])!.ok,
    unlockKey: (key) => void s.get('SELECT pg_advisory_unlock($1, hashtext($2))', [KEY_LOCK_CLASS, key]),
  };
}
