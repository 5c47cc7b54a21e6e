/**
 * `waitForRun`: who waits for which run to settle (finish, or park with nothing
 * running). One observer for all of them, looked up by run id, so a committed event
 * costs the same however many callers wait (one observer per caller made every event
 * visit every waiter: 50 runs in flight, 50 calls per event).
 */
import { KowalskiError } from '../../core/index.js';
import type { RunState } from '../../actors/index.js';
import { isSettled } from '../../actors/index.js';
import type { Observers } from '../observers.js';

interface Waiter {
  resolve(state: RunState): void;
  reject(err: unknown): void;
}

export class RunWaiters {
  private readonly waiting = new Map<string, Waiter[]>();
  private stopped: KowalskiError | undefined;

  constructor(observers: Observers) {
    observers.on('run:event', ({ stored, state }) => {
      if (!isSettled(state)) return;
      const waiters = this.waiting.get(stored.runId);
      if (waiters === undefined) return;
      this.waiting.delete(stored.runId);
      for (const w of waiters) w.resolve(state);
    });
    observers.on('engine:stopped', ({ error }) => {
      this.stopped = error;
      const all = [...this.waiting.values()].flat();
      this.waiting.clear();
      for (const w of all) w.reject(error);
    });
  }

  /**
   * Resolves with the run's state once it is settled. `stateNow` reads the committed
   * state (undefined: no such run); it is read after the waiter is in place, so no
   * commit falls between the two.
   */
  wait(runId: string, stateNow: () => RunState | undefined): Promise<RunState> {
    if (this.stopped !== undefined) return Promise.reject(this.stopped);
    const state = stateNow();
    if (state === undefined) return Promise.reject(new KowalskiError('KW_ERR_RUN_NOT_FOUND', `no run ${runId}`));
    if (isSettled(state)) return Promise.resolve(state);
    return new Promise((resolve, reject) => {
      const list = this.waiting.get(runId);
      if (list === undefined) this.waiting.set(runId, [{ resolve, reject }]);
      else list.push({ resolve, reject });
    });
  }
}
