/**
 * `writeDraft`: give birth — a checked draft written as a horde folder under an output
 * root, atomically. The files go into `<root>/.<id>.tmp-<random>` (each fsynced), which
 * is renamed to `<root>/<id>`; a folder already there is refused unless `overwrite`, when
 * it is renamed aside, replaced, and removed. The written folder is then loaded again.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { KowalskiError } from '../../core/index.js';
import { builtinKindNames } from '../hordes.js';
import { formatProblems, HORDE_ID, loadHorde } from '../horde/index.js';
import { checkDraft, toDraftProblem } from './check.js';
import type { DraftCheckOptions } from './check.js';
import { syncFolder, writeFolder } from './folder.js';
import { renderDraft } from './render.js';
import type { BirthResult } from './types.js';

export interface WriteDraftOptions extends DraftCheckOptions {
  /** The folder the horde's folder `<id>/` is written into (made when missing). */
  outputRoot: string;
  /** Replace an existing `<outputRoot>/<id>/` (default false: refused with KW_ERR_HORDE_EXISTS). */
  overwrite?: boolean;
}

/** The problems a refused draft's message lists. */
const LISTED_PROBLEMS = 5;

/** Write a draft as a horde folder. Throws KW_ERR_DRAFT_INVALID (errors in the draft) or KW_ERR_HORDE_EXISTS. */
export async function writeDraft(input: unknown, options: WriteDraftOptions): Promise<BirthResult> {
  const knownKinds = options.knownKinds ?? builtinKindNames();
  const check = await checkDraft(input, { ...options, knownKinds });
  const errors = check.problems.filter((p) => p.severity === 'error');
  if (errors.length > 0) {
    const more = errors.length > LISTED_PROBLEMS ? `\n(and ${errors.length - LISTED_PROBLEMS} more)` : '';
    throw new KowalskiError('KW_ERR_DRAFT_INVALID', `the draft has ${errors.length} error(s) and was not written:\n${formatProblems(errors.slice(0, LISTED_PROBLEMS))}${more}`);
  }
  const { draft } = check;
  // checkDraft refuses a bad id; checked again here because it is a path segment.
  if (!HORDE_ID.test(draft.id)) throw new KowalskiError('KW_ERR_DRAFT_INVALID', `id "${draft.id}" cannot be a folder name`);
  const root = path.resolve(options.outputRoot);
  await fs.mkdir(root, { recursive: true, mode: 0o700 });
  const target = path.join(root, draft.id);
  if (!options.overwrite && (await exists(target))) throw taken(draft.id, target);

  const temp = path.join(root, `.${draft.id}.tmp-${randomBytes(6).toString('hex')}`);
  try {
    await writeFolder(temp, renderDraft(draft), { fsync: true });
    await syncFolder(temp);
    await moveInto(temp, target, draft.id, options.overwrite === true);
    await syncFolder(root);
  } finally {
    await fs.rm(temp, { recursive: true, force: true });
  }
  const loaded = await loadHorde(target, { knownKinds, ...(options.knownTools === undefined ? {} : { knownTools: options.knownTools }) });
  return {
    horde_id: draft.id,
    horde_root: target,
    validate_ok: loaded.ok,
    problems: (loaded.ok ? loaded.warnings : loaded.problems).map(toDraftProblem),
  };
}

/** Rename the written folder into place; with `overwrite`, the old one goes aside first and is removed after (or put back when the rename fails). */
async function moveInto(temp: string, target: string, id: string, overwrite: boolean): Promise<void> {
  const aside = overwrite && (await exists(target)) ? path.join(path.dirname(target), `.${id}.old-${randomBytes(6).toString('hex')}`) : undefined;
  if (aside !== undefined) await fs.rename(target, aside);
  try {
    await fs.rename(temp, target);
  } catch (err) {
    if (aside !== undefined) await fs.rename(aside, target);
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') throw taken(id, target);
    throw err;
  }
  if (aside !== undefined) await fs.rm(aside, { recursive: true, force: true });
}

function taken(id: string, target: string): KowalskiError {
  return new KowalskiError('KW_ERR_HORDE_EXISTS', `a horde folder "${id}" already exists at ${target}; choose another id or write it with overwrite`);
}

async function exists(p: string): Promise<boolean> {
  return fs.lstat(p).then(() => true, () => false);
}
