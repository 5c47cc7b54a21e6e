/** Time comes in through this, so tests can drive it. */
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** A monotonic reading in microseconds (sub-millisecond waits: the committer's hold, engine/runs/intake-hold.ts). */
export const monotonicMicros = (): number => performance.now() * 1000;
