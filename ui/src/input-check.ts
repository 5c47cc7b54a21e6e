/** The run form's checks, mirroring the server's (engine/runs/run-input.ts): required, http(s) URLs, choices. */
import type { InputField } from './types.js';

/** Field id → what is wrong with it; empty when the form can be sent. */
export function checkInput(fields: readonly InputField[], values: Record<string, string>): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const f of fields) {
    // What the server will check: the answer sent (empty ones are not sent), else the field's default.
    const given = values[f.id] ?? '';
    const v = given !== '' ? given : f.default;
    if (f.required && (v === undefined || v.trim() === '')) problems[f.id] = `${f.label} is required.`;
    else if (v !== undefined && f.type === 'choice' && f.options !== undefined && !f.options.includes(v)) {
      problems[f.id] = `Choose one of: ${f.options.join(', ')}.`;
    } else if (v !== undefined && v !== '' && f.type === 'url' && !/^https?:\/\//i.test(v)) problems[f.id] = 'Must be an http:// or https:// URL.';
  }
  return problems;
}

/** The answers to send: empty optional answers are left out so the server applies its defaults. */
export function answersToSend(fields: readonly InputField[], values: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const f of fields) {
    const v = values[f.id];
    if (v !== undefined && v !== '') out[f.id] = v;
  }
  return out;
}

/** The first values of the form: each field's default, else empty. */
export function initialValues(fields: readonly InputField[]): Record<string, string> {
  return Object.fromEntries(fields.map((f) => [f.id, f.default ?? '']));
}

/**
 * Pins a server's KW_ERR_INPUT_INVALID message (`bad input for x: "a" (A) is required; …`)
 * to the fields it names; the rest stays general.
 */
export function serverProblemsByField(message: string, fields: readonly InputField[]): Record<string, string> {
  const out: Record<string, string> = {};
  const ids = new Set(fields.map((f) => f.id));
  const list = message.replace(/^bad input for [^:]*:\s*/, '').split(/;\s+/);
  for (const p of list) {
    const id = /^"([^"]+)"/.exec(p)?.[1];
    if (id !== undefined && ids.has(id)) out[id] = out[id] === undefined ? p : `${out[id]}; ${p}`;
  }
  return out;
}
