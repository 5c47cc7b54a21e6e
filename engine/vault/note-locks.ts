/**
 * Notes held across processes (NoteLocks) from a store's named try-locks: on Postgres, a
 * session advisory lock per note (as a firing key is held), released by the holder, or by
 * the server when the holder's connection ends (a node that dies lets its notes go).
 * A note another node holds is tried again every KEY_RETRY_MS, for at most `waitMs`.
 */
import { KowalskiError } from '../../core/index.js';
import type { Clock } from '../base/clock.js';
import type { Timers } from '../base/timers.js';
import type { NoteLocks } from './types.js';

/** How long a write waits for a note another node holds, ms. */
export const NOTE_WAIT_MS = 10_000;
const RETRY_MS = 25;

export interface NoteLockDeps {
  /** The store's named lock, held by this process until `unlock` (Postgres: RunStore.tryLockKey). */
  tryLock(key: string): boolean;
  unlock(key: string): void;
  clock: Clock;
  timers: Timers;
  /** Default NOTE_WAIT_MS. */
  waitMs?: number;
}

/** The lock's name for a note: no firing key or trigger (`<horde>/<name>…`) can be spelt so. */
export const noteLockKey = (rel: string): string => `vault note\n${rel}`;

export function storeNoteLocks(deps: NoteLockDeps): NoteLocks {
  const tryHold = (rel: string): (() => void) | undefined => {
    const key = noteLockKey(rel);
    if (!deps.tryLock(key)) return undefined;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      deps.unlock(key);
    };
  };
  return {
    tryHold,
    async hold(rel) {
      const waitMs = deps.waitMs ?? NOTE_WAIT_MS;
      const until = deps.clock.now() + waitMs;
      for (;;) {
        const release = tryHold(rel);
        if (release !== undefined) return release;
        if (deps.clock.now() >= until) {
          throw new KowalskiError('KW_ERR_VAULT_NOTE_BUSY', `another node of the shared store has been writing the note ${JSON.stringify(rel)} for over ${waitMs / 1000} s; nothing was written, try again`);
        }
        await new Promise<void>((resolve) => deps.timers.at(deps.clock.now() + RETRY_MS, resolve));
      }
    },
  };
}
