/**
 * The benchmarks' slow step kind: waits $KW_BENCH_SLEEP_MS (default 200) and passes.
 * It stops at once when the step is cancelled, so a closing engine does not wait for it.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { StepContext, StepResult } from '../../steps/index.js';

export default async function slow(ctx: StepContext): Promise<StepResult> {
  const ms = Number(process.env.KW_BENCH_SLEEP_MS ?? '200');
  await sleep(ms, undefined, { signal: ctx.signal });
  return { outcome: 'pass' };
}
