/**
 * Helpers around the `Progress` callback (contract/progress.ts): the listener that ignores
 * every report, and a throttle so a fast loop does not redraw a terminal thousands of times.
 * The throttle reads time through the `now` it is given (core reads no clock itself).
 */
import type { Progress, ProgressReport } from '../contract/progress.js';

/** The listener of an operation nobody watches. */
export const NO_PROGRESS: Progress = () => undefined;

/** The last report of a phase: everything known to be done. */
const isLast = (p: ProgressReport): boolean => p.total !== null && p.done >= p.total;

/**
 * `fn`, called at most once every `ms` milliseconds (default 100), except that the first
 * report, the first of each new phase and the last of a phase (`done === total`) always
 * pass. `now` is the clock in milliseconds (`Date.now` in the CLI, a fake one in tests).
 */
export function throttleProgress(fn: Progress, now: () => number, ms = 100): Progress {
  let last: number | undefined;
  let phase: string | undefined;
  return (p) => {
    const t = now();
    if (last !== undefined && phase === p.phase && !isLast(p) && t - last < ms) return;
    last = t;
    phase = p.phase;
    fn(p);
  };
}
