/** What a fuzz target is to the runner (`run.ts`). */
import { KowalskiError } from '../../core/index.js';
import type { Rng } from './rng.js';

export interface FuzzTarget {
  /** Draw input `i` from `rng`, feed it, check the answer; resolve with a short outcome label, throw on a crash. */
  one(i: number, rng: Rng): Promise<string>;
  close(): Promise<void>;
}

/** An error a target answers with on purpose: a KowalskiError with a stable code. Anything else is a crash (rethrown). */
export function refusal(err: unknown): string {
  if (err instanceof KowalskiError && err.code !== 'KW_ERR_INTERNAL') return err.code;
  throw err;
}
