/**
 * Before a run exists: every path the run will read is there. A `path` input names an
 * existing file or folder, a `file` input an existing file, a `folder` input an existing
 * folder; each readable, written absolute or from `~/` (the server has no working folder
 * of the caller's). The run's project folder (1.x: `project_path`, or the input labelled
 * "Project path") and an input used as a whole `verify_cwd` (`{{input.<id>}}`) are wanted
 * as folders too, whatever their type. Checked by the engine, so the API, the CLI and
 * triggers all refuse a doomed run the same way: KW_ERR_INPUT_INVALID naming each field.
 * A `path` or `file` input may instead name a vault note, `vault:<note>` (core/vault-ref.ts):
 * that note must exist, by the vault's path rules.
 */
import fs from 'node:fs/promises';
import { constants } from 'node:fs';
import path from 'node:path';
import { KowalskiError, messageOf, vaultNoteOf } from '../../core/index.js';
import type { HordeDef, InputField } from '../../core/index.js';
import { expandHome } from '../../agents/index.js';
import { resolveProject } from '../../steps/index.js';

export type PathWanted = 'path' | 'file' | 'folder';

/** `{{input.<id>}}` and nothing else: the whole folder a command runs in is that answer. */
const WHOLE_INPUT = /^\s*\{\{\s*input\.([A-Za-z0-9_][A-Za-z0-9_-]*)\s*\}\}\s*$/;

/** Input id → what it must name, for the answers a run is started with. */
export function pathsWanted(horde: HordeDef, answers: Record<string, string>): Map<string, PathWanted> {
  const wanted = new Map<string, PathWanted>();
  for (const f of horde.inputs) if (f.type === 'path' || f.type === 'file' || f.type === 'folder') wanted.set(f.id, f.type);
  for (const name of horde.pipeline) {
    const id = WHOLE_INPUT.exec(horde.steps[name]?.verifyCwd ?? '')?.[1];
    if (id !== undefined && horde.inputs.some((f) => f.id === id)) wanted.set(id, 'folder');
  }
  const project = resolveProject(horde, answers, () => false);
  if (project !== undefined && project.from !== 'text') wanted.set(project.input, 'folder');
  return wanted;
}

const WHAT: Record<PathWanted, string> = { path: 'a file or folder', file: 'a file', folder: 'a folder' };

/** What is wrong with `raw` as `want`, or undefined when it is fine. */
export async function pathProblem(raw: string, want: PathWanted): Promise<string | undefined> {
  const value = raw.trim();
  if (value !== '~' && !value.startsWith('~/') && !path.isAbsolute(value)) {
    return `${JSON.stringify(value)} must be an absolute path or start with ~/ (${WHAT[want]} on the machine where kowalski runs)`;
  }
  const abs = path.resolve(expandHome(value));
  const stat = await fs.stat(abs).catch((err: NodeJS.ErrnoException) => err);
  if (stat instanceof Error) {
    if (stat.code === 'ENOENT' || stat.code === 'ENOTDIR') return `${abs} does not exist (${WHAT[want]} is wanted)`;
    return `${abs} cannot be read (${stat.code ?? stat.message})`;
  }
  if (want === 'folder' && !stat.isDirectory()) return `${abs} is not a folder`;
  if (want === 'file' && !stat.isFile()) return `${abs} is not a file`;
  if (want === 'path' && !stat.isDirectory() && !stat.isFile()) return `${abs} is neither a file nor a folder`;
  const mode = stat.isDirectory() ? constants.R_OK | constants.X_OK : constants.R_OK;
  if (!(await fs.access(abs, mode).then(() => true, () => false))) return `${abs} is not readable by kowalski`;
  return undefined;
}

/** What the check asks of the vault: whether a note exists (a path the vault refuses throws). */
export interface VaultNotes {
  exists(path: string): Promise<boolean>;
}

/** What is wrong with `vault:<note>` as `want`, or undefined when it is fine. */
async function noteProblem(note: string, want: PathWanted, vault: VaultNotes | undefined): Promise<string | undefined> {
  if (want === 'folder') return `vault:${note} names a vault note, and a folder is wanted`;
  if (vault === undefined) return `vault:${note} names a vault note, and this engine has no vault`;
  try {
    return (await vault.exists(note)) ? undefined : `there is no note ${JSON.stringify(note)} in the vault`;
  } catch (err) {
    return `vault:${note}: ${messageOf(err)}`;
  }
}

/** Throws KW_ERR_INPUT_INVALID naming every answer whose path (or vault note) is missing, of the wrong kind or unreadable. */
export async function checkInputPaths(horde: HordeDef, answers: Record<string, string>, vault?: VaultNotes): Promise<void> {
  const fields = new Map<string, InputField>(horde.inputs.map((f) => [f.id, f]));
  const problems: string[] = [];
  for (const [id, want] of pathsWanted(horde, answers)) {
    const value = answers[id];
    if (value === undefined || value.trim() === '') continue;
    const note = vaultNoteOf(value);
    const problem = note === undefined ? await pathProblem(value, want) : await noteProblem(note, want, vault);
    const label = fields.get(id)?.label;
    if (problem !== undefined) problems.push(`"${id}"${label === undefined || label === id ? '' : ` (${label})`}: ${problem}`);
  }
  if (problems.length > 0) {
    const first = problems[0]!.slice(1, problems[0]!.indexOf('"', 1));
    throw new KowalskiError('KW_ERR_INPUT_INVALID', `bad input for ${horde.id}: ${problems.join('; ')}`, { where: { key: `inputs.${first}` } });
  }
}
