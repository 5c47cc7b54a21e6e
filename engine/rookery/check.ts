/**
 * `checkDraft`: a draft checked by the engine's own loader. The draft is normalised and
 * bounded, checked for what only a draft can get wrong (no id, no steps, a step of no or
 * an invented kind), rendered into a temp folder and loaded by `loadHorde`; each problem
 * is pointed back at the draft (`agents/<x>.md` → `step: x`).
 */
import fs from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { KowalskiError } from '../../core/index.js';
import type { Problem } from '../../core/index.js';
import { builtinKindNames } from '../hordes.js';
import { HORDE_ID, loadHorde } from '../horde/index.js';
import { writeFolder } from './folder.js';
import { assertRawBounds, MAX_DRAFT_CHARS, MAX_DRAFT_STEPS } from './limits.js';
import { asRecord } from './names.js';
import { normalizeDraft } from './normalize.js';
import { renderDraft } from './render.js';
import type { DraftCheck, DraftProblem, HordeDraft, RookeryStage } from './types.js';

export interface DraftCheckOptions {
  /** Step kinds a draft may use (default: the built-in kinds). */
  knownKinds?: ReadonlySet<string>;
  /** Tools that need no warning (default: the loader's built-in tools). MCP tools are `server.tool`. */
  knownTools?: ReadonlySet<string>;
}

/** Normalise a draft and refuse one over the bounds (KW_ERR_DRAFT_TOO_LARGE: its lists counted, then its JSON measured, before it is read) or not an object (KW_ERR_DRAFT_INVALID). */
export function boundedDraft(input: unknown): HordeDraft {
  const raw = asRecord(input);
  if (raw !== undefined) assertRawBounds(raw);
  let size: number;
  try {
    size = JSON.stringify(input)?.length ?? 0;
  } catch (err) {
    throw new KowalskiError('KW_ERR_DRAFT_INVALID', 'a horde draft must be plain JSON data (this one cannot be written as JSON)', { cause: err });
  }
  if (size > MAX_DRAFT_CHARS) throw new KowalskiError('KW_ERR_DRAFT_TOO_LARGE', `the draft is ${size} characters of JSON; the Rookery reads at most ${MAX_DRAFT_CHARS}`);
  const draft = normalizeDraft(input);
  if (draft.steps.length > MAX_DRAFT_STEPS) throw new KowalskiError('KW_ERR_DRAFT_TOO_LARGE', `the draft has ${draft.steps.length} steps; a horde may have at most ${MAX_DRAFT_STEPS}`);
  return draft;
}

/** Check a draft: normalised, then loaded by the engine's loader. Throws only for a draft that is no object or over the bounds. */
export async function checkDraft(input: unknown, options: DraftCheckOptions = {}): Promise<DraftCheck> {
  const draft = boundedDraft(input);
  const knownKinds = options.knownKinds ?? builtinKindNames();
  const early = draftProblems(draft, knownKinds);
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'kowalski-draft-'));
  let loaded: Problem[];
  try {
    const folder = path.join(dir, draft.id === '' ? 'draft' : draft.id);
    await writeFolder(folder, renderDraft(draft), { fsync: false });
    const result = await loadHorde(folder, { knownKinds, ...(options.knownTools === undefined ? {} : { knownTools: options.knownTools }) });
    loaded = (result.ok ? result.warnings : result.problems).map((p) => ({ ...p, message: p.message.split(folder).join(draft.id || 'the draft') }));
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
  // What the draft check said about a key, the loader need not say again.
  const said = new Set(early.map((p) => `${p.file}\n${p.key ?? ''}`));
  const problems = [...early, ...loaded.filter((p) => !said.has(`${p.file}\n${p.key ?? ''}`)).map(toDraftProblem)];
  return { ok: !problems.some((p) => p.severity === 'error'), draft, problems };
}

/** A loader problem pointed at the draft: the step its file is about; no line (the file is not the draft). */
export function toDraftProblem(problem: Problem): DraftProblem {
  const { line: _line, ...rest } = problem;
  const step = /^(?:agents|prompts)\/(.+)\.md$/.exec(problem.file)?.[1];
  return step === undefined ? rest : { ...rest, step };
}

/** Where a Rookery conversation stands. */
export function draftStage(check: DraftCheck, born: boolean): RookeryStage {
  if (born) return 'born';
  return check.ok ? 'proposed' : 'interview';
}

/** What only a draft can get wrong, said in the draft's terms before the loader sees it. */
function draftProblems(draft: HordeDraft, knownKinds: ReadonlySet<string>): DraftProblem[] {
  const out: DraftProblem[] = [];
  const known = [...knownKinds].join(', ');
  if (draft.id === '') {
    out.push({ severity: 'error', code: 'KW_ERR_KEY_MISSING', file: 'horde.md', key: 'id', message: 'the draft has no id: give it one of lower-case letters, digits and - (it becomes the folder name)' });
  } else if (!HORDE_ID.test(draft.id)) {
    out.push({ severity: 'error', code: 'KW_ERR_KEY_VALUE', file: 'horde.md', key: 'id', message: `id "${draft.id}" must be lower-case letters, digits and -, starting with a letter or digit` });
  }
  if (draft.steps.length === 0) {
    out.push({ severity: 'error', code: 'KW_ERR_PIPELINE_EMPTY', file: 'horde.md', key: 'pipeline', message: 'the draft has no steps: add at least one (e.g. an ingest step that takes the question)' });
  }
  for (const step of draft.steps) {
    const at = { file: `agents/${step.name}.md`, key: 'kind', step: step.name };
    if (step.kind === '') {
      out.push({ severity: 'error', code: 'KW_ERR_KEY_MISSING', ...at, message: `step "${step.name}" is named in the pipeline but has no kind; give it one of: ${known}` });
    } else if (!knownKinds.has(step.kind)) {
      out.push({ severity: 'error', code: 'KW_ERR_STEP_KIND_UNKNOWN', ...at, message: `step "${step.name}" has kind "${step.kind}", which is not a step kind kowalski knows; use one of: ${known}` });
    }
  }
  return out;
}
