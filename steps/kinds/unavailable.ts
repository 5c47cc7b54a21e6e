/**
 * Step kinds of the format that this build registers but cannot run yet
 * (`table_profile`, `sql_batch`, `xlsx_report`: they arrive with the data tool).
 */
import { KowalskiError } from '../../core/index.js';
import type { StepContext, StepResult } from '../protocol.js';

export default function unavailable(ctx: StepContext): Promise<StepResult> {
  const { step } = ctx.task;
  return Promise.reject(new KowalskiError('KW_ERR_STEP_KIND_UNAVAILABLE',
    `step \`${step.name}\` is of kind \`${step.kind}\`, which is not available in this build yet (it arrives with the data tool)`,
    { where: { file: step.file, key: 'kind' } }));
}
