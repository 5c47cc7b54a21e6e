/** The benchmarks' no-op step kind: passes at once and writes nothing. */
import type { StepContext, StepResult } from '../../steps/index.js';

export default function noop(_ctx: StepContext): Promise<StepResult> {
  return Promise.resolve({ outcome: 'pass' });
}
