/**
 * `[[inputs]]` of an agents file: the run form. Every problem here is KW_ERR_INPUTS_INVALID
 * with the key, e.g. `inputs[1].default`; an unknown `type` is only a warning (1.x took any).
 */
import { INPUT_TYPES } from '../../core/index.js';
import type { InputField, InputType } from '../../core/index.js';
import { Fields } from './fields.js';

/** What an input id may look like (it appears in `{{input.<id>}}` placeholders). */
export const INPUT_ID = /^[A-Za-z0-9_][A-Za-z0-9_-]*$/;

/** `type`: one of INPUT_TYPES; any other string is a plain text field with a warning, as in 1.x. */
function readType(f: Fields): InputType {
  const written = f.string('type');
  if (written === undefined) return 'text';
  if ((INPUT_TYPES as readonly string[]).includes(written)) return written as InputType;
  f.problems.warn('KW_WARN_INPUT_TYPE_UNKNOWN', f.at('type'),
    `input type "${written}" is not one kowalski knows (${INPUT_TYPES.join(', ')}); the field is plain text, as in 1.x`);
  return 'text';
}

/** Read `[[inputs]]` from a step's root table. Entries with problems are left out. */
export function readInputs(step: Fields): InputField[] {
  const out: InputField[] = [];
  const seen = new Map<string, number>();
  for (const { table, index } of step.tables('inputs')) {
    const f = new Fields(table, step.source, step.problems, step.keyOf(`inputs[${index}]`), 'KW_ERR_INPUTS_INVALID');
    const before = step.problems.errorCount;
    const id = f.string('id', { required: true });
    if (id !== undefined && !INPUT_ID.test(id)) {
      f.bad('id', `input id "${id}" must be letters, digits, _ or - (it is used as {{input.${id}}})`);
    } else if (id !== undefined) {
      const first = seen.get(id);
      if (first !== undefined) f.bad('id', `input id "${id}" is declared twice (also inputs[${first}])`);
      else seen.set(id, index);
    }
    const type = readType(f);
    const label = f.string('label');
    const required = f.bool('required') ?? false;
    const placeholder = f.string('placeholder');
    const options = f.has('options') ? f.stringArray('options') : undefined;
    const def = f.string('default');
    if (type === 'choice') {
      if (options === undefined || options.length === 0) {
        if (!f.has('options')) f.bad('options', 'a choice input needs options = ["…", …]');
        else if (options !== undefined) f.bad('options', 'a choice input needs at least one option');
      } else if (def !== undefined && !options.includes(def)) {
        f.bad('default', `default "${def}" is not one of the options (${options.map((o) => `"${o}"`).join(', ')})`);
      }
    }
    if (id === undefined || step.problems.errorCount > before) continue;
    const field: InputField = { id, type, label: label ?? id, required };
    if (placeholder !== undefined) field.placeholder = placeholder;
    if (type === 'choice' && options !== undefined) field.options = options;
    if (def !== undefined) field.default = def;
    out.push(field);
  }
  return out;
}
