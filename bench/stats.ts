/** Small numeric helpers: medians of repeated measurements and a monotonic clock. */
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Milliseconds, monotonic, sub-millisecond resolution. */
export function now(): number {
  return performance.now();
}

/** Run `measure` `times` times one after the other; the values in order. */
export async function repeat<T>(times: number, measure: (rep: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < times; i++) out.push(await measure(i));
  return out;
}

/**
 * CPU time the main thread has used so far, µs: the kernel's on-CPU time of this thread
 * (`/proc/self/task/<pid>/schedstat`, ns), which leaves out the pool threads that
 * `process.cpuUsage()` would count. Undefined where /proc is not there.
 */
export function mainThreadCpuUs(): number | undefined {
  try {
    return Number(fs.readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ', 1)[0]) / 1000;
  } catch {
    return undefined;
  }
}
