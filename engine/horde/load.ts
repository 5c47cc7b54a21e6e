/**
 * Load and validate a horde folder into a HordeDef. Never throws for problems in the
 * folder: every problem is collected, each with its code, file, key and line.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { STEP_KINDS } from '../../core/index.js';
import type { HordeDef, InputField, LoadResult, StepDef } from '../../core/index.js';
import type { Fields } from './fields.js';
import { readBudget } from './budget.js';
import { agentFileNames, readMarkdown } from './files.js';
import { buildEdges, readPipeline } from './graph.js';
import { manifestOf } from './manifest.js';
import { DEFAULT_HASH_LIMITS, hashFolder } from './hash.js';
import type { HashLimits } from './hash.js';
import { checkPathAt, checkRelPath } from './paths.js';
import { ProblemList } from './problems.js';
import { checkPlaceholders, readStep } from './steps.js';
import { readTriggers } from './triggers.js';
import { linkReviews } from './review-steps.js';

export const HORDE_ID = /^[a-z0-9][a-z0-9-]*$/;

/** The built-in tools a step may name without a warning. */
export const DEFAULT_KNOWN_TOOLS: ReadonlySet<string> = new Set([
  'web_fetch', 'web_search', 'list_dir', 'read_file', 'write_file', 'query_sql', 'list_tables', 'describe_table',
]);

/** Display copy keys of horde.md, kept as written in `HordeDef.display` when they are strings. */
export const DISPLAY_KEYS: readonly string[] = [
  'default_question', 'prompt_tip', 'delivery_title', 'delivery_note', 'delivery_summary_note',
  'capability_prefix', 'artifacts_root', 'default_topic',
];

export interface LoadOptions {
  /** Step kinds accepted (default: STEP_KINDS). */
  knownKinds?: ReadonlySet<string>;
  /** Tool names that need no warning (default: DEFAULT_KNOWN_TOOLS). MCP tools are `server.tool`. */
  knownTools?: ReadonlySet<string>;
  /** Where the folder was found (default 'path'). */
  origin?: HordeDef['origin'];
  /** Bounds of the folder hash (default 2,000 files and folders, 20 MB). */
  hashLimits?: HashLimits;
}

export async function loadHorde(dir: string, options: LoadOptions = {}): Promise<LoadResult> {
  const abs = path.resolve(dir);
  const problems = new ProblemList();
  const fail = (): LoadResult => ({ ok: false, problems: problems.reported() });

  const isDir = await fs.stat(abs).then((s) => s.isDirectory(), () => false);
  if (!isDir) {
    problems.error('KW_ERR_HORDE_NOT_FOUND', { file: 'horde.md' }, `${abs} is not a folder`);
    return fail();
  }
  const manifest = (await manifestOf(abs)) ?? 'horde.md';
  if (manifest === 'app.md') problems.warn('KW_WARN_MANIFEST_APP_MD', { file: 'app.md' }, 'there is no horde.md: app.md is read as the manifest, as 1.x did (rename it horde.md to silence this)');
  const read = await readMarkdown(abs, manifest, problems);
  if (read.status === 'missing') problems.error('KW_ERR_HORDE_NOT_FOUND', { file: 'horde.md' }, `there is no horde.md (or 1.x app.md) in ${abs}`);
  if (read.status !== 'ok') return fail();
  const h = read.fields;

  const id = readId(h, path.basename(abs));
  const displayName = h.string('display_name') ?? id ?? '';
  const description = h.string('description') ?? '';
  const pipeline = readPipeline(h);
  const confirmCommands = h.bool('confirm_commands') ?? true;
  const workdir = readWorkdir(h);
  const deliveryRootRel = readDelivery(h);
  const display: Record<string, string> = {};
  for (const key of DISPLAY_KEYS) {
    if (typeof h.table[key] === 'string') display[key] = h.raw(key) as string;
  }

  const knownKinds = options.knownKinds ?? new Set<string>(STEP_KINDS);
  const knownTools = options.knownTools ?? DEFAULT_KNOWN_TOOLS;
  const steps: Record<string, StepDef> = {};
  const stepFields = new Map<string, Fields>();
  const names = pipeline ?? [];
  let allSteps = pipeline !== undefined;
  const stepNames: ReadonlySet<string> = new Set(names);
  const written: unknown[] = Array.isArray(h.table.pipeline) ? h.table.pipeline : [];
  const firstAt = new Map<unknown, number>();
  written.forEach((item, i) => {
    if (!firstAt.has(item)) firstAt.set(item, i);
  });
  const agentFiles = await agentFileNames(abs);
  for (const name of names) {
    const file = `agents/${name}.md`;
    const listed = agentFiles === undefined || agentFiles.has(`${name}.md`.toLowerCase());
    const md = listed ? await readMarkdown(abs, file, problems) : { status: 'missing' as const };
    if (md.status === 'missing') {
      const index = firstAt.get(name) ?? -1;
      problems.error('KW_ERR_STEP_FILE_MISSING', h.at(`pipeline[${index}]`), `step "${name}" has no ${file}; every pipeline step needs one`);
    }
    const step = md.status === 'ok' ? await readStep(name, md.fields, md.body, { dir: abs, pipeline: stepNames, knownKinds, knownTools }) : undefined;
    if (step === undefined || md.status !== 'ok') {
      allSteps = false;
      continue;
    }
    steps[name] = step;
    stepFields.set(name, md.fields);
  }

  // The form: the inputs of the first step, in pipeline order, that declares any.
  const inputs: InputField[] = names.map((n) => steps[n]?.inputs ?? []).find((list) => list.length > 0) ?? [];
  // When a step could not be read, the form is not known: skip checks against it.
  const declared = allSteps ? new Set(inputs.map((i) => i.id)) : undefined;
  if (declared !== undefined) {
    for (const [name, f] of stepFields) checkPlaceholders(f, steps[name] as StepDef, declared);
  }
  const edges = pipeline === undefined ? [] : buildEdges(h, pipeline);
  if (pipeline !== undefined) linkReviews(pipeline, steps, edges, stepFields, problems);
  const triggers = readTriggers(h, declared);
  const budget = readBudget(h);
  const extra = h.unread();

  const hashed = await hashFolder(abs, options.hashLimits ?? DEFAULT_HASH_LIMITS);
  if (!hashed.ok) problems.error('KW_ERR_HORDE_TOO_LARGE', { file: '.' }, hashed.message);

  if (problems.hasErrors || id === undefined || pipeline === undefined || !hashed.ok) return fail();
  const horde: HordeDef = {
    id, displayName, description, pipeline, steps, edges, triggers, confirmCommands, workdir, deliveryRootRel,
    display, inputs, body: read.body, extra, hash: hashed.hash, dir: abs, origin: options.origin ?? 'path',
  };
  if (manifest === 'app.md') horde.manifest = manifest;
  if (budget !== undefined) horde.budget = budget;
  return { ok: true, horde, warnings: problems.reported() };
}

function readId(h: Fields, folder: string): string | undefined {
  if (h.has('id')) {
    const id = h.string('id');
    if (id !== undefined && !HORDE_ID.test(id)) {
      h.bad('id', `id "${id}" must be lower-case letters, digits and -, starting with a letter or digit`);
      return undefined;
    }
    return id;
  }
  h.raw('id');
  if (HORDE_ID.test(folder)) {
    h.problems.warn('KW_WARN_ID_MISSING', h.at('id'), `id is missing; the folder name "${folder}" is used (write id = "${folder}" to keep it stable when the folder moves)`);
    return folder;
  }
  h.problems.error('KW_ERR_KEY_MISSING', h.at('id'), `id is missing and the folder name "${folder}" is not a valid id (lower-case letters, digits and -); write id = "…"`);
  return undefined;
}

/** The default workdir, relative to the run's directory. */
const DEFAULT_WORKDIR = 'output';
/** The default (and 1.x's fallback) delivery file, relative to the workdir. */
const DEFAULT_DELIVERY = 'HANDOFF.md';

/**
 * `workdir`: relative to the run's own directory (1.x's `<horde>/output` is `<run>/output`).
 * An absolute one (1.x wrote there) is a warning: the run works in its own `output`.
 */
function readWorkdir(h: Fields): string {
  const raw = h.string('workdir');
  if (raw === undefined) return DEFAULT_WORKDIR;
  if (path.isAbsolute(raw.trim())) {
    h.problems.warn('KW_WARN_WORKDIR_ABSOLUTE', h.at('workdir'),
      `workdir "${raw}" is absolute; each run works in its own folder, so this run's files go to <run>/${DEFAULT_WORKDIR} and nothing is written to ${raw}`);
    return DEFAULT_WORKDIR;
  }
  return (checkPathAt(h, 'workdir', raw, 'the run directory') ?? DEFAULT_WORKDIR).replace(/\/$/, '');
}

/**
 * `delivery_root_rel`: a workdir-relative file. A value that does not look like one (empty,
 * a placeholder word such as "string" or "output", a bare word, absolute, with `..`) falls
 * back to HANDOFF.md with a warning, as 1.x's `output_looks_invalid` did.
 */
function readDelivery(h: Fields): string {
  const raw = h.string('delivery_root_rel');
  if (raw === undefined) return DEFAULT_DELIVERY;
  const t = raw.trim();
  const checked = checkRelPath(t);
  const word = !t.includes('/') && !t.includes('.') && /^[\p{L}\s]*$/u.test(t);
  if (word || !checked.ok || checked.path.endsWith('/') || checked.path === '.') {
    h.problems.warn('KW_WARN_DELIVERY_FALLBACK', h.at('delivery_root_rel'),
      `delivery_root_rel "${raw}" does not look like a file in the workdir (${checked.ok ? 'a bare word or a folder' : checked.reason}); ${DEFAULT_DELIVERY} is used, as 1.x did`);
    return DEFAULT_DELIVERY;
  }
  return checked.path;
}
