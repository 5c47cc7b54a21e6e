/**
 * The model step kinds (`process`, `deliver`, `compile`, `ask`, `lint`, and the 1.x
 * aliases `step`, `final`). The model layer is not wired into steps yet: every model
 * step fails with KW_ERR_NO_MODEL, naming what to configure.
 */
import { KowalskiError } from '../../core/index.js';
import type { StepContext, StepResult } from '../protocol.js';

export const NO_MODEL_MESSAGE = 'no model provider configured: set [model] default in config.toml';

export default function model(ctx: StepContext): Promise<StepResult> {
  return Promise.reject(new KowalskiError('KW_ERR_NO_MODEL', NO_MODEL_MESSAGE, { where: { file: ctx.task.step.file, key: 'model' } }));
}
