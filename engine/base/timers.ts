/**
 * Timers at absolute times, on the engine's clock. The system version re-arms long
 * delays (Node's setTimeout caps at ~24.8 days) and does not keep the process alive; a
 * test passes its own, driven by a simulated clock.
 */
import type { Clock } from './clock.js';

export interface Timers {
  /** Call `fn` once the clock reaches `atMs` (at once if it already has). Returns a cancel function. */
  at(atMs: number, fn: () => void): () => void;
}

const MAX_DELAY_MS = 2 ** 31 - 1;

export function systemTimers(clock: Clock): Timers {
  return {
    at(atMs, fn) {
      let timer: NodeJS.Timeout | undefined;
      let cancelled = false;
      const arm = (): void => {
        const delay = atMs - clock.now();
        if (delay <= 0) {
          timer = setTimeout(() => { if (!cancelled) fn(); }, 0);
        } else {
          timer = setTimeout(() => { if (!cancelled) arm(); }, Math.min(delay, MAX_DELAY_MS));
        }
        timer.unref();
      };
      arm();
      return () => {
        cancelled = true;
        clearTimeout(timer);
      };
    },
  };
}

/** A call repeated on the engine's timers (`every`). */
export interface Repeating {
  /** Arm the next call anew, `ms()` from now (its interval changed). */
  rearm(): void;
  /** No call after this one. */
  stop(): void;
}

/**
 * `fn` every `ms()` (read again at each arming), the first call `ms()` from now. The next
 * call is armed after this one returns, also when it threw: a caller that must outlive
 * its errors catches them itself (a throw still reaches the process).
 */
export function every(timers: Timers, clock: Clock, ms: () => number, fn: () => void): Repeating {
  let cancel: (() => void) | undefined;
  let stopped = false;
  const arm = (): void => {
    cancel?.();
    cancel = timers.at(clock.now() + ms(), () => {
      cancel = undefined;
      try {
        fn();
      } finally {
        if (!stopped) arm();
      }
    });
  };
  arm();
  return {
    rearm() {
      if (!stopped) arm();
    },
    stop() {
      stopped = true;
      cancel?.();
      cancel = undefined;
    },
  };
}
