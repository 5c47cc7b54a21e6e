/**
 * Timers at absolute times, on the engine's clock. The system version re-arms long
 * delays (Node's setTimeout caps at ~24.8 days) and does not keep the process alive; a
 * test passes its own, driven by a simulated clock.
 */
import type { Clock } from '../clock.js';

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
