/**
 * The run's project folder, as 1.x found it: the operator's folder that `verify` and
 * `apply` run in (`verify_cwd` is relative to it) and that a 1.x `fs_tool` step's file
 * tools are confined to. Resolved once per live run by the engine and carried in each
 * step's task, so the command the operator approves and the one the step runs agree.
 *
 * In order: the input `project_path`; else a form input whose label holds "project path"
 * (any case); else the first absolute or `~/` folder path that exists written in the
 * source text — a `textarea` answer, or an answer the form does not declare such as
 * `question` (1.x's `extract_project_path_from_source`; a one-line `text` or `path` field
 * is a value of its own, and what a trigger adds, `trigger_*`, is not the operator's text:
 * neither is searched). None: there is no project folder
 * and commands run in the workdir, as before.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KowalskiError } from '../core/index.js';
import type { HordeDef } from '../core/index.js';
import { expandHome } from '../agents/index.js';

export interface ProjectFolder {
  /** Absolute (`~/` expanded, not resolved through links). */
  path: string;
  /** The input it came from. */
  input: string;
  /** `id`: the input `project_path`; `label`: an input labelled "Project path"; `text`: a folder path written in an input's text. */
  from: 'id' | 'label' | 'text';
}

/** The input id 1.x reads the project folder from. */
export const PROJECT_INPUT = 'project_path';

const isFolder = (p: string): boolean => fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() === true;

/** Quotes, brackets and trailing punctuation around a word of text, as 1.x trims them (in any order: `"/x",` too). */
function trimToken(raw: string): string {
  return raw.trim().replace(/^["'()]+/, '').replace(/["'(),;:.]+$/, '');
}

/** The project folder of a run with these form answers, or undefined. */
export function resolveProject(horde: HordeDef, input: Record<string, string>, exists: (p: string) => boolean = isFolder): ProjectFolder | undefined {
  const given = (id: string): string | undefined => {
    const v = Object.hasOwn(input, id) ? input[id]?.trim() : undefined;
    return v === undefined || v === '' ? undefined : v;
  };
  const explicit = given(PROJECT_INPUT);
  if (explicit !== undefined) return { path: path.resolve(expandHome(explicit)), input: PROJECT_INPUT, from: 'id' };
  for (const field of horde.inputs) {
    const v = given(field.id);
    if (v !== undefined && field.label.toLowerCase().includes('project path')) return { path: path.resolve(expandHome(v)), input: field.id, from: 'label' };
  }
  const declared = new Set(horde.inputs.map((f) => f.id));
  const texts = [...horde.inputs.filter((f) => f.type === 'textarea').map((f) => f.id), ...Object.keys(input).sort().filter((id) => !declared.has(id) && !id.startsWith('trigger_'))];
  for (const id of texts) {
    for (const word of (given(id) ?? '').split(/\s+/)) {
      const t = trimToken(word);
      if (!(t.startsWith('/') || t.startsWith('~/'))) continue;
      const p = path.resolve(expandHome(t));
      if (exists(p)) return { path: p, input: id, from: 'text' };
    }
  }
  return undefined;
}

/**
 * Before a command runs in it: the project folder exists and is a folder
 * (KW_ERR_PROJECT_NOT_FOUND naming the input), and a relative `verify_cwd` stays inside it,
 * links followed (KW_ERR_PATH_ESCAPES). `cwd` is the command's folder, `verifyCwd` the
 * expanded `verify_cwd` ('' when unset).
 */
export function checkProjectCwd(project: ProjectFolder, cwd: string, verifyCwd: string, file: string): void {
  let real: string;
  try {
    real = fs.realpathSync(project.path);
  } catch {
    real = '';
  }
  if (real === '' || !isFolder(real)) {
    const how = project.from === 'text' ? `the folder named in input \`${project.input}\`` : `input \`${project.input}\``;
    throw new KowalskiError('KW_ERR_PROJECT_NOT_FOUND',
      `the project folder ${project.path} (from ${how}) does not exist or is not a folder; start the run again with an existing folder`,
      { where: { file, key: `inputs.${project.input}` } });
  }
  const raw = verifyCwd;
  if (raw === '' || path.isAbsolute(raw) || raw.startsWith('~')) return;
  let target: string;
  try {
    target = fs.realpathSync(cwd);
  } catch {
    return; // a missing folder is the command's spawn error, which names verify_cwd
  }
  const rel = path.relative(real, target);
  if (rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) {
    throw new KowalskiError('KW_ERR_PATH_ESCAPES',
      `verify_cwd "${raw}" leads to ${target}, outside the project folder ${real}; it is relative to the project folder and stays inside it`,
      { where: { file, key: 'verify_cwd' } });
  }
}
