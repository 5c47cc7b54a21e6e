/**
 * Placeholders in `verify_command` and `verify_cwd`: `{{input.<id>}}`, `{{workdir}}` and
 * `{{run_dir}}`, written exactly so (no spaces inside the braces). Anything else between
 * `{{` and `}}` is a validation error.
 *
 * Only validation lives here. Expansion (shell-quoting values in `verify_command`) is
 * the steps layer's `resolveCommand` in steps/command.ts, which accepts everything this
 * scanner accepts; a test runs the built-in hordes' commands through it.
 */

export type Placeholder =
  | { type: 'input'; id: string; text: string; index: number }
  | { type: 'workdir' | 'run_dir'; text: string; index: number };

export interface PlaceholderScan {
  placeholders: Placeholder[];
  /** Every `{{…}}` that is not one of the allowed forms, as written. */
  invalid: string[];
}

const BRACES = /\{\{(.*?)\}\}/g;
const INPUT = /^input\.([A-Za-z0-9_][A-Za-z0-9_-]*)$/;

export function scanPlaceholders(text: string): PlaceholderScan {
  const placeholders: Placeholder[] = [];
  const invalid: string[] = [];
  for (const m of text.matchAll(BRACES)) {
    const inner = m[1] ?? '';
    const input = INPUT.exec(inner);
    if (input?.[1] !== undefined) placeholders.push({ type: 'input', id: input[1], text: m[0], index: m.index });
    else if (inner === 'workdir' || inner === 'run_dir') placeholders.push({ type: inner, text: m[0], index: m.index });
    else invalid.push(m[0]);
  }
  return { placeholders, invalid };
}
