/** A simulated clock and the timers on it: time moves only when the test says, and due timers fire in order. */
import type { Clock, Timers } from '../../engine/index.js';

export interface SimTime {
  clock: Clock;
  timers: Timers;
  /** Move to `ms`, firing every timer due on the way (each at its own instant, in order). */
  advanceTo(ms: number): void;
  /** Timers not yet fired. */
  pending(): number[];
}

export function simulatedTime(startMs: number): SimTime {
  let now = startMs;
  let nextId = 0;
  const due = new Map<number, { at: number; fn: () => void }>();
  return {
    clock: { now: () => now },
    timers: {
      at(at, fn) {
        const id = nextId++;
        due.set(id, { at, fn });
        return () => void due.delete(id);
      },
    },
    advanceTo(ms) {
      for (;;) {
        let first: [number, { at: number; fn: () => void }] | undefined;
        for (const entry of due) if (entry[1].at <= ms && (first === undefined || entry[1].at < first[1].at)) first = entry;
        if (first === undefined) break;
        due.delete(first[0]);
        now = Math.max(now, first[1].at);
        first[1].fn();
      }
      now = Math.max(now, ms);
    },
    pending: () => [...due.values()].map((d) => d.at).sort((a, b) => a - b),
  };
}
