/**
 * The catalog: every horde folder found in the built-in and the user's hordes folders,
 * each with its load result, and the lookup of a horde by id or by path.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { expandHome } from '../../agents/tools/file-root.js'; // not the agents face: the catalog's worker stays light
import { KowalskiError } from '../../core/index.js';
import type { HordeDef, LoadResult, Problem } from '../../core/index.js';
import { splitFrontMatter } from './frontmatter.js';
import { didYouMean } from './suggest.js';
import { loadHorde } from './load.js';
import { manifestOf } from './manifest.js';
import type { LoadOptions } from './load.js';
import { lineOfKey } from './locate.js';
import { countProblems } from './problem-cap.js';
import { formatProblems } from './problems.js';

export interface CatalogEntry {
  /** The horde's id; the folder name when the folder has errors. */
  id: string;
  /** Absolute folder. */
  dir: string;
  origin: HordeDef['origin'];
  result: LoadResult;
}

export interface Catalog {
  /** Absolute folders that were searched (absent when not given). */
  builtinDir?: string;
  userDir?: string;
  /** Built-in hordes first, then the user's, each by folder name. */
  entries: CatalogEntry[];
}

export interface ListOptions extends Omit<LoadOptions, 'origin'> {
  /** The built-in hordes folder (the package's `hordes/`). */
  builtinDir?: string;
  /** The user's hordes folder (`<data>/hordes`); need not exist. */
  userDir?: string;
}

/** The file a bundle import leaves in the horde folder it installs: the horde is then `imported`. */
export const IMPORT_MARKER = '.kowalski-import.json';

async function isImported(folder: string): Promise<boolean> {
  try {
    return (await fs.stat(path.join(folder, IMPORT_MARKER))).isFile();
  } catch {
    return false;
  }
}

/** Every subfolder with a horde.md, loaded. A horde whose id is already taken is an error on the later one. */
export async function listHordes(options: ListOptions): Promise<Catalog> {
  const { builtinDir, userDir, ...load } = options;
  const catalog: Catalog = { entries: [] };
  const seen = new Map<string, CatalogEntry>();
  for (const [dir, origin] of [[builtinDir, 'builtin'], [userDir, 'user']] as const) {
    if (dir === undefined) continue;
    const abs = path.resolve(dir);
    if (origin === 'builtin') catalog.builtinDir = abs;
    else catalog.userDir = abs;
    for (const folder of await hordeFolders(abs)) {
      const folderOrigin = origin === 'user' && (await isImported(folder)) ? 'imported' : origin;
      const result = await loadHorde(folder, { ...load, origin: folderOrigin });
      const entry: CatalogEntry = { id: result.ok ? result.horde.id : path.basename(folder), dir: folder, origin: folderOrigin, result };
      const earlier = seen.get(entry.id);
      if (result.ok && earlier !== undefined) entry.result = await idTaken(folder, result, earlier);
      else if (result.ok) seen.set(entry.id, entry);
      catalog.entries.push(entry);
    }
  }
  return catalog;
}

/**
 * A horde by id (from the catalog), or by path to a folder holding a horde.md (origin
 * 'path', unless the folder is one of the catalog's). A bare name that is no id is also
 * tried as a folder relative to `cwd`. Throws KW_ERR_HORDE_NOT_FOUND naming where it looked.
 * The entry may hold validation problems: see `requireHorde`.
 */
export async function resolveHordeRef(
  ref: string,
  catalog: Catalog,
  options: Omit<LoadOptions, 'origin'> & { cwd?: string } = {},
): Promise<CatalogEntry> {
  const { cwd = process.cwd(), ...load } = options;
  const pathLike = /[/\\]/.test(ref) || ref.startsWith('.') || ref.startsWith('~') || path.isAbsolute(ref);
  if (!pathLike) {
    const byId = catalog.entries.find((e) => e.id === ref && e.result.ok) ?? catalog.entries.find((e) => e.id === ref);
    if (byId !== undefined) return byId;
  }
  const abs = path.resolve(cwd, expandHome(ref));
  if ((await manifestOf(abs)) === undefined) {
    const places = [catalog.builtinDir, catalog.userDir].filter((d): d is string => d !== undefined);
    const ids = places.length === 0 ? 'no horde folders were searched' : `no horde with id "${ref}" in ${places.join(' or ')}`;
    const hint = pathLike ? '' : didYouMean(ref, catalog.entries.map((e) => e.id));
    throw new KowalskiError('KW_ERR_HORDE_NOT_FOUND', `no horde "${ref}": ${ids}, and ${abs} is not a folder holding a horde.md (or 1.x app.md)${hint}`);
  }
  const known = catalog.entries.find((e) => e.dir === abs);
  if (known !== undefined) return known;
  const result = await loadHorde(abs, { ...load, origin: 'path' });
  return { id: result.ok ? result.horde.id : path.basename(abs), dir: abs, origin: 'path', result };
}

/** The HordeDef of an entry, or KW_ERR_HORDE_INVALID listing its problems. */
export function requireHorde(entry: CatalogEntry): HordeDef {
  if (entry.result.ok) return entry.result.horde;
  const errors = entry.result.problems.filter((p) => p.severity === 'error');
  const first = errors[0];
  const where = first === undefined ? undefined : { file: first.file, ...(first.key === undefined ? {} : { key: first.key }), ...(first.line === undefined ? {} : { line: first.line }) };
  return throwInvalid(entry.dir, errors, where);
}

function throwInvalid(dir: string, errors: Problem[], where: { file?: string; key?: string; line?: number } | undefined): never {
  const count = countProblems(errors).errors;
  const message = `the horde in ${dir} has ${count} error${count === 1 ? '' : 's'}:\n${formatProblems(errors)}`;
  throw new KowalskiError('KW_ERR_HORDE_INVALID', message, where === undefined ? {} : { where });
}

async function hordeFolders(dir: string): Promise<string[]> {
  let names: string[];
  try {
    names = (await fs.readdir(dir)).sort();
  } catch {
    return [];
  }
  const out: string[] = [];
  for (const name of names) {
    const folder = path.join(dir, name);
    if ((await manifestOf(folder)) !== undefined) out.push(folder);
  }
  return out;
}

async function idTaken(folder: string, result: Extract<LoadResult, { ok: true }>, earlier: CatalogEntry): Promise<LoadResult> {
  const manifest = result.horde.manifest ?? 'horde.md';
  const text = await fs.readFile(path.join(folder, manifest), 'utf8').catch(() => '');
  const split = splitFrontMatter(text);
  const line = split.ok ? lineOfKey(split.value.toml, 'id') : undefined;
  const problem: Problem = {
    severity: 'error',
    code: 'KW_ERR_HORDE_ID_TAKEN',
    file: manifest,
    key: 'id',
    message: `id "${result.horde.id}" is already used by the ${earlier.origin} horde in ${earlier.dir}; give this horde another id`,
  };
  if (line !== undefined && split.ok) problem.line = line + split.value.tomlStartLine - 1;
  return { ok: false, problems: [problem, ...result.warnings] };
}
