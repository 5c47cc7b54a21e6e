/**
 * The placeholders of the fields of the no-model steps that reach out — a `send` step's
 * `adapter`, `to` and `subject`, an `mcp_call` step's `tool` and the strings of its
 * `arguments`: `{{input.<id>}}` (the run's answer, trimmed; an input not answered is
 * empty), `{{date}}` (the run's day, UTC, `2026-12-05`) and `{{run_id}}`, written without
 * spaces. The loader refuses any other `{{…}}`; they are filled when the operator is asked
 * for an approval and when the step runs.
 */
const BRACES = /\{\{(.*?)\}\}/g;
const INPUT = /^input\.([A-Za-z0-9_][A-Za-z0-9_-]*)$/;

export interface StepFieldScan {
  /** The input ids it names. */
  inputs: string[];
  /** Every `{{…}}` that is none of its placeholders, as written. */
  invalid: string[];
}

export function scanStepField(text: string): StepFieldScan {
  const inputs: string[] = [];
  const invalid: string[] = [];
  for (const m of text.matchAll(BRACES)) {
    const inner = m[1] ?? '';
    const input = INPUT.exec(inner);
    if (input?.[1] !== undefined) inputs.push(input[1]);
    else if (inner !== 'date' && inner !== 'run_id') invalid.push(m[0]);
  }
  return { inputs, invalid };
}

/** The field with its placeholders filled, trimmed. */
export function fillStepField(text: string, values: { input: Readonly<Record<string, string>>; date: string; runId: string }): string {
  return text.replace(BRACES, (whole, inner: string) => {
    if (inner === 'date') return values.date;
    if (inner === 'run_id') return values.runId;
    const input = INPUT.exec(inner);
    return input?.[1] === undefined ? whole : (values.input[input[1]] ?? '').trim();
  }).trim();
}

/**
 * Whether a `send` or `mcp_call` step will reach out with these answers: false when its
 * `adapter` or `tool` fills to nothing (the step then sends or calls nothing).
 */
export function reachesOut(step: { send?: { adapter: string }; call?: { tool: string } }, input: Readonly<Record<string, string>>): boolean {
  const field = step.send?.adapter ?? step.call?.tool;
  return field === undefined || fillStepField(field, { input, date: '2026-01-01', runId: 'r' }) !== '';
}
