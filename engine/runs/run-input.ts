/** Check a run's form answers against the horde's `[[inputs]]` before anything is written. */
import { KowalskiError } from '../../core/index.js';
import type { HordeDef } from '../../core/index.js';

/**
 * Returns the answers with defaults filled in, then `fromTrigger` (what fired the run:
 * `trigger`, `trigger_time`, `trigger_path`, `trigger_payload`, … — not form fields, so
 * not checked against the form); throws KW_ERR_INPUT_INVALID naming every problem.
 */
export function checkRunInput(horde: HordeDef, given: Record<string, string>, fromTrigger: Record<string, string> = {}): Record<string, string> {
  const problems: string[] = [];
  const known = new Map(horde.inputs.map((f) => [f.id, f]));
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(given)) {
    if (!known.has(key)) {
      problems.push(`"${key}" is not an input of ${horde.id} (it has: ${[...known.keys()].join(', ') || 'none'})`);
      continue;
    }
    if (typeof value !== 'string') problems.push(`"${key}" must be text`);
    else out[key] = value;
  }
  for (const field of horde.inputs) {
    if (out[field.id] === undefined && field.default !== undefined) out[field.id] = field.default;
    const v = out[field.id];
    if (field.required && (v === undefined || v.trim() === '')) problems.push(`"${field.id}" (${field.label}) is required`);
    if (v !== undefined && field.type === 'choice' && field.options !== undefined && !field.options.includes(v)) {
      problems.push(`"${field.id}" must be one of ${field.options.map((o) => JSON.stringify(o)).join(', ')}, not ${JSON.stringify(v)}`);
    }
    if (v !== undefined && v !== '' && field.type === 'url' && !/^https?:\/\//i.test(v)) problems.push(`"${field.id}" must be an http(s) URL`);
  }
  if (problems.length > 0) throw new KowalskiError('KW_ERR_INPUT_INVALID', `bad input for ${horde.id}: ${problems.join('; ')}`);
  for (const [key, value] of Object.entries(fromTrigger)) if (!known.has(key)) out[key] = value;
  return out;
}
