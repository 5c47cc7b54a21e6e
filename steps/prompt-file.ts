/**
 * The text of a step's `prompt_file`: the run's snapshot keeps it as it was when the run
 * started (so an edit of the horde folder never changes a run in flight); without one it
 * is read from the horde folder. A model step's instructions; a `sql_batch` step's fixed plan.
 */
import fs from 'node:fs';
import { KowalskiError } from '../core/index.js';
import { resolveInside } from './paths.js';
import type { StepTask } from './protocol.js';

/** The prompt file's text, trimmed; '' when the step names none. */
export function promptFileText(task: Pick<StepTask, 'step' | 'horde'>): string {
  const { step, horde } = task;
  if (step.promptFile === undefined) return '';
  const kept = horde.prompts?.[step.promptFile];
  if (kept !== undefined) return kept.trim();
  const where = { file: step.file, key: 'prompt_file' };
  const file = resolveInside(horde.dir, step.promptFile, 'KW_ERR_PATH_ESCAPES', 'the prompt file', where);
  try {
    return fs.readFileSync(file, 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new KowalskiError('KW_ERR_PROMPT_MISSING', `step \`${step.name}\`: the prompt file ${step.promptFile} does not exist in ${horde.dir}`, { where });
    }
    throw err;
  }
}
