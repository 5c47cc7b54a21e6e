/**
 * One step of a lenient draft → a DraftStep, before defaults are filled: our keys and the
 * 1.x ones (`tool_ids`, `model_id`, `prompt`, `output_path`, `writes`, `reads`), values
 * coerced as a person would read them, unknown keys (`avatar`, `agent_body`, …) dropped.
 */
import { APPLY_MODES, ISOLATIONS, NOTE_MODES } from '../../core/index.js';
import type { DraftInput, DraftStep } from './types.js';
import { asFlag, asRecord, asText, asWhole, asWord, asWords } from './names.js';

/** The kinds a missing `kind` is guessed from, by the step's name (as 1.x did). */
const GUESSED_KINDS = ['ingest', 'verify', 'apply', 'deliver', 'ask', 'lint', 'compile', 'process'];

/** Guess a kind from a step's name (`deliver-report` → `deliver`); `process` when nothing fits. */
export function guessKind(name: string): string {
  return GUESSED_KINDS.find((k) => name.includes(k)) ?? 'process';
}

/**
 * The fields of one raw step under its final `name`. A step with no `kind` key gets one
 * guessed from its name when `guess`; `kind` stays '' when it was written empty or the step
 * was only named (in a 1.x `pipeline`) and never described, so a check names it.
 */
export function readDraftStep(raw: Record<string, unknown>, name: string, guess: boolean): DraftStep {
  const step: DraftStep = {
    name,
    kind: raw.kind === undefined && guess ? guessKind(name) : (asWord(raw.kind)?.toLowerCase() ?? ''),
    display_name: asWord(raw.display_name) ?? '',
    description: asText(raw.description)?.trim() ?? '',
    prompt_body: asText(raw.prompt_body ?? raw.prompt) ?? '',
    output: asWord(raw.output ?? raw.writes ?? raw.output_path) ?? '',
    context_paths: asWords(raw.context_paths ?? raw.reads),
    tools: asWords(raw.tools ?? raw.tool_ids),
    inputs: readInputs(raw.inputs),
  };
  const model = asWord(raw.model ?? raw.model_id);
  const agent = asWord(raw.agent);
  const verifyCommand = asWord(raw.verify_command);
  const verifyCwd = asWord(raw.verify_cwd);
  const applyMode = oneOf(asWord(raw.apply_mode)?.toLowerCase().replace(/[_ ]/g, '-').replace(/^dryrun$/, 'dry-run'), APPLY_MODES);
  const note = asWord(raw.note);
  const noteMode = oneOf(asWord(raw.note_mode)?.toLowerCase(), NOTE_MODES);
  const adapter = asWord(raw.adapter);
  const to = asWord(raw.to);
  const subject = asWord(raw.subject);
  const tool = asWord(raw.tool);
  const args = typeof raw.arguments === 'string' ? raw.arguments : asRecord(raw.arguments);
  const timeout = asWhole(raw.timeout_secs, 1);
  const isolation = oneOf(asWord(raw.isolation)?.toLowerCase().replace(/[- ]/g, '_'), ISOLATIONS);
  if (model !== undefined) step.model = model;
  if (agent !== undefined) step.agent = agent;
  if (verifyCommand !== undefined) step.verify_command = verifyCommand;
  if (verifyCwd !== undefined) step.verify_cwd = verifyCwd;
  if (applyMode !== undefined) step.apply_mode = applyMode;
  if (note !== undefined) step.note = note;
  if (noteMode !== undefined) step.note_mode = noteMode;
  if (adapter !== undefined) step.adapter = adapter;
  if (to !== undefined) step.to = to;
  if (subject !== undefined) step.subject = subject;
  if (tool !== undefined) step.tool = tool;
  if (args !== undefined) step.arguments = args;
  if (timeout !== undefined) step.timeout_secs = timeout;
  if (isolation !== undefined) step.isolation = isolation;
  return step;
}

/** `[[inputs]]` entries: objects with an id (a bare string is an id); the rest dropped. */
export function readInputs(value: unknown): DraftInput[] {
  if (!Array.isArray(value)) return [];
  const out: DraftInput[] = [];
  for (const item of value) {
    const r = asRecord(item) ?? (typeof item === 'string' ? { id: item } : undefined);
    const id = asWord(r?.id)?.replace(/\s+/g, '_');
    if (r === undefined || id === undefined) continue;
    const input: DraftInput = { id };
    const type = asWord(r.type)?.toLowerCase();
    const label = asWord(r.label);
    const required = asFlag(r.required);
    const placeholder = asText(r.placeholder);
    const def = asText(r.default);
    if (type !== undefined) input.type = type;
    if (label !== undefined) input.label = label;
    if (required !== undefined) input.required = required;
    if (placeholder !== undefined) input.placeholder = placeholder;
    if (r.options !== undefined) input.options = asWords(r.options);
    if (def !== undefined) input.default = def;
    out.push(input);
  }
  return out;
}

function oneOf<T extends string>(value: string | undefined, allowed: readonly T[]): T | undefined {
  return allowed.find((a) => a === value);
}
