/**
 * `normalizeDraft`: any draft-like object → a HordeDraft, as a person would tidy it. Our
 * shape and the 1.x one (`penguins` + a separate `pipeline`, top-level display keys) are
 * both read; ids and step names become kebab-case (renames followed into edges and
 * `@step:` references), and what is missing is filled: display names, outputs (none for a
 * review, which writes nothing), what each
 * step reads, the run form of a first `ingest` step, a prompt for a model step, and the
 * straight line a draft that writes only some edges (say, one loop back) still means.
 */
import { KowalskiError, MODEL_STEP_KINDS } from '../../core/index.js';
import type { EdgeWhen } from '../../core/index.js';
import { DISPLAY_KEYS } from '../horde/index.js';
import type { DraftEdge, DraftInput, DraftStep, HordeDraft } from './types.js';
import { asFlag, asRecord, asText, asWhole, asWord, slugify, titleOf } from './names.js';
import { readDraftStep } from './read-step.js';
import { assertRawBounds } from './limits.js';

const MODEL_KINDS: ReadonlySet<string> = new Set(MODEL_STEP_KINDS);
/** Kinds that gather what the earlier steps made: as a last step they read every earlier step. */
const DELIVER_KINDS: ReadonlySet<string> = new Set(['deliver', 'final']);
/** Kinds that write no file: a review passes on the artifact of the step before it (it may not name an output). */
const NO_OUTPUT_KINDS: ReadonlySet<string> = new Set(['review']);
/** Outputs a model writes when it does not know what to write (1.x `output_looks_invalid`). */
const PLACEHOLDER_OUTPUTS: ReadonlySet<string> = new Set(['string', 'path', 'output', 'artifact', 'file', 'none', 'null']);

/** The form a first `ingest` step gets when no step declares one. */
export function defaultForm(): DraftInput[] {
  return [
    { id: 'question', type: 'textarea', label: 'What should this horde work on?', required: true },
    { id: 'source', type: 'textarea', label: 'Source material (notes, links, paths)', required: false },
  ];
}

/**
 * Tidy a draft, in time linear in its size. Throws KW_ERR_DRAFT_INVALID when `input` is not
 * an object at all, KW_ERR_DRAFT_TOO_LARGE when its lists are over the bounds (counted before
 * anything is read).
 */
export function normalizeDraft(input: unknown): HordeDraft {
  const raw = asRecord(input);
  if (raw === undefined) {
    throw new KowalskiError('KW_ERR_DRAFT_INVALID', `a horde draft must be a JSON object with id, display_name, description and steps; got ${describe(input)}`);
  }
  assertRawBounds(raw);
  const renames = new Map<string, string>();
  const steps = readSteps(raw, renames);
  const rename = (name: string): string => renames.get(name) ?? slugify(name);
  for (const s of steps) s.context_paths = s.context_paths.map((ref) => renameRef(ref, rename));
  const id = slugify(asWord(raw.id) ?? asWord(raw.display_name) ?? '');
  const draft: HordeDraft = {
    id,
    display_name: asWord(raw.display_name) ?? titleOf(id),
    description: asText(raw.description)?.trim() ?? '',
    steps,
    edges: readEdges(raw.edges, rename),
    triggers: Array.isArray(raw.triggers) ? raw.triggers.map(asRecord).filter((t) => t !== undefined).map((t) => structuredClone(t)) : [],
  };
  const workdir = asWord(raw.workdir)?.replace(/\/+$/, '');
  const delivery = asWord(raw.delivery_root_rel);
  const confirm = asFlag(raw.confirm_commands);
  const display = readDisplay(raw);
  if (workdir !== undefined && workdir !== '') draft.workdir = workdir;
  if (delivery !== undefined) draft.delivery_root_rel = looksInvalid(delivery) ? 'HANDOFF.md' : delivery;
  if (confirm !== undefined) draft.confirm_commands = confirm;
  if (display !== undefined) draft.display = display;
  fillLine(draft);
  fillDefaults(draft);
  return draft;
}

/**
 * Written edges are the whole graph (docs/edges.md), so a draft that writes a loop back
 * but not the line would leave steps unconnected. As a person means it: each pair of
 * neighbours, the first with no forward edge out and the second none in, is joined —
 * on `pass` when the first already routes its failure elsewhere, else `always` (the
 * straight line's rule). The edges are written into the draft, so the person sees them.
 */
function fillLine(draft: HordeDraft): void {
  if (draft.edges.length === 0) return;
  const at = new Map(draft.steps.map((s, i) => [s.name, i]));
  const forward = draft.edges.filter((e) => (at.get(e.to) ?? -1) > (at.get(e.from) ?? Number.MAX_SAFE_INTEGER));
  const hasOut = new Set(forward.map((e) => e.from));
  const hasIn = new Set(forward.map((e) => e.to));
  const routesFailure = new Set(draft.edges.filter((e) => e.when === 'fail').map((e) => e.from));
  const line: DraftEdge[] = [];
  for (let i = 0; i + 1 < draft.steps.length; i += 1) {
    const from = draft.steps[i]!.name;
    const to = draft.steps[i + 1]!.name;
    if (hasOut.has(from) || hasIn.has(to)) continue;
    line.push({ from, to, when: routesFailure.has(from) ? 'pass' : 'always' });
  }
  draft.edges = [...draft.edges, ...line];
}

/** Steps in pipeline order, named in kebab-case without duplicates; `renames` gets old name → new name. */
function readSteps(raw: Record<string, unknown>, renames: Map<string, string>): DraftStep[] {
  const list = Array.isArray(raw.steps) ? raw.steps : Array.isArray(raw.penguins) ? raw.penguins : [];
  const used = new Set<string>();
  // The next suffix to try for each base: a base named n times costs n tries in all, not n².
  const nextSuffix = new Map<string, number>();
  const unique = (base: string): string => {
    let name = base;
    let n = nextSuffix.get(base) ?? 2;
    for (; used.has(name); n += 1) name = `${base}-${n}`;
    nextSuffix.set(base, n);
    used.add(name);
    return name;
  };
  const described: DraftStep[] = [];
  list.forEach((item, i) => {
    const r = asRecord(item) ?? (typeof item === 'string' ? { name: item } : undefined);
    if (r === undefined) return;
    const written = asWord(r.name) ?? '';
    const name = unique(slugify(written) || `step-${i + 1}`);
    if (written !== '' && !renames.has(written)) renames.set(written, name);
    described.push(readDraftStep(r, name, true));
  });
  if (!Array.isArray(raw.pipeline)) return described;
  // 1.x: the order is `pipeline`; a name there with no step becomes a step of no kind (so a check names it).
  const byName = new Map(described.map((s) => [s.name, s]));
  const ordered: DraftStep[] = [];
  const placed = new Set<DraftStep>();
  for (const entry of raw.pipeline) {
    const written = asWord(asRecord(entry)?.name ?? entry);
    if (written === undefined) continue;
    const name = renames.get(written) ?? slugify(written);
    const step = byName.get(name);
    if (step !== undefined && !placed.has(step)) {
      ordered.push(step);
      placed.add(step);
    } else if (step === undefined) {
      const stub = unique(name || `step-${ordered.length + 1}`);
      renames.set(written, stub);
      ordered.push(readDraftStep({}, stub, false));
    }
  }
  return [...ordered, ...described.filter((s) => !placed.has(s))];
}

function readEdges(value: unknown, rename: (name: string) => string): DraftEdge[] {
  if (!Array.isArray(value)) return [];
  const out: DraftEdge[] = [];
  for (const item of value) {
    const r = asRecord(item);
    if (r === undefined) continue;
    const edge: DraftEdge = { from: rename(asWord(r.from) ?? ''), to: rename(asWord(r.to) ?? '') };
    // An unknown `when` is kept as written (lower-cased) so the check names it at its edge.
    const when = asWord(r.when)?.toLowerCase();
    const loops = asWhole(r.max_loops, 0);
    if (when !== undefined) edge.when = when as EdgeWhen;
    if (loops !== undefined) edge.max_loops = loops;
    out.push(edge);
  }
  return out;
}

/** `display` and the display keys written at the top level (1.x); strings only, known keys only. */
function readDisplay(raw: Record<string, unknown>): Record<string, string> | undefined {
  const nested = asRecord(raw.display) ?? {};
  const out: Record<string, string> = {};
  for (const key of DISPLAY_KEYS) {
    const value = asText(raw[key]) ?? asText(nested[key]);
    if (value !== undefined && value.trim() !== '') out[key] = value;
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

/** `@step:<old>@` → `@step:<new>@`; other references as they are. */
export function renameRef(ref: string, rename: (name: string) => string): string {
  const m = /^@step:(.+)@$/.exec(ref);
  return m === null ? ref : `@step:${rename(m[1] ?? '')}@`;
}

/** An output that is no workdir path: empty, a placeholder word, absolute, or climbing out. */
export function looksInvalid(output: string): boolean {
  const t = output.trim();
  if (t === '' || PLACEHOLDER_OUTPUTS.has(t.toLowerCase())) return true;
  if (!t.includes('/') && !t.includes('.')) return true;
  return t.startsWith('/') || t.includes('\\') || /^[A-Za-z]:/.test(t) || t.split('/').includes('..');
}

function fillDefaults(draft: HordeDraft): void {
  const { steps } = draft;
  const anyForm = steps.some((s) => s.inputs.length > 0);
  const position = new Map(steps.map((s, at) => [s.name, at]));
  const into = new Map<string, string[]>();
  for (const e of draft.edges) {
    const list = into.get(e.to);
    if (list === undefined) into.set(e.to, [e.from]);
    else list.push(e.from);
  }
  steps.forEach((step, i) => {
    if (step.display_name === '') step.display_name = titleOf(step.name);
    if (NO_OUTPUT_KINDS.has(step.kind)) step.output = '';
    else if (looksInvalid(step.output)) step.output = `${step.name}.md`;
    if (MODEL_KINDS.has(step.kind) && step.prompt_body.trim() === '') step.prompt_body = defaultPrompt(draft, step);
    if (i === 0 && step.inputs.length === 0 && !anyForm && (step.kind === 'ingest' || step.kind === 'step')) step.inputs = defaultForm();
    if (i > 0 && step.context_paths.length === 0) step.context_paths = defaultReads(draft, i, position, into.get(step.name) ?? []);
  });
}

/**
 * What step `i` reads when the draft says nothing: a join reads its branches, a last deliver
 * step every earlier step, any other the previous artifact. `sources`: the steps with an edge into it.
 */
function defaultReads(draft: HordeDraft, i: number, position: ReadonlyMap<string, number>, sources: readonly string[]): string[] {
  const step = draft.steps[i] as DraftStep;
  const from = sources.filter((name) => (position.get(name) ?? i) < i);
  if (from.length >= 2) return [...new Set(from)].map((n) => `@step:${n}@`);
  if (DELIVER_KINDS.has(step.kind) && i === draft.steps.length - 1 && i >= 2) return draft.steps.slice(0, i).map((s) => `@step:${s.name}@`);
  return ['@artifact@'];
}

function defaultPrompt(draft: HordeDraft, step: DraftStep): string {
  const what = step.description === '' ? '' : `\n\n${step.description}`;
  return `You are the **${step.display_name}** step (\`${step.name}\`) of the horde "${draft.display_name}".${what}\n\nRead the context you are given and write your result as Markdown.\n`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value}`;
}
