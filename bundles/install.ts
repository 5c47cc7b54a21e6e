/**
 * Install: a reviewed bundle into `<data>/hordes/<id>/`, marked imported. The files are
 * copied from the staged scratch folder to a fresh one, the id line of horde.md rewritten
 * when the id changes, the marker file written, the result loaded once more, and only
 * then renamed into place — one rename, so the hordes folder never holds half a horde.
 * Replacing moves the old folder aside first and deletes it only after the rename worked.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { KowalskiError, messageOf } from '../core/index.js';
import { IMPORT_MARKER, dataPaths, formatProblems, loadHorde, manifestOf } from '../engine/index.js';
import type { CatalogEntry } from '../engine/index.js';
import { BundleInvalidError } from './reject.js';
import type { StagedBundle } from './review.js';
import { makeScratch, removeScratch } from './scratch.js';

/**
 * An installable id. The loader's own rule (lower-case letters, digits and `-`, at most
 * 100 characters): an id it would refuse would install a broken horde.
 */
export const INSTALL_ID = /^[a-z0-9][a-z0-9-]{0,99}$/;

export interface InstallOptions {
  /** Install under this id instead of the bundle's (horde.md's id line is rewritten). */
  id?: string;
  /** Replace a user or imported horde with the same id (never a built-in). Default false. */
  replace?: boolean;
  /** Default: the current time. */
  now?: () => Date;
}

export interface Installed {
  hordeId: string;
  /** The installed folder. */
  dir: string;
  /** The folders of the horde it replaced (now deleted). */
  replaced: string[];
}

/** What the marker file holds. */
export interface ImportMarker {
  importedAt: string;
  /** sha256 (hex) of the bundle. */
  sha256: string;
  sourceHordeId: string;
}

/** horde.md (or 1.x app.md: `file`) with its top-level `id = "…"` line rewritten; everything else as written. */
export function rewriteId(text: string, id: string, file = 'horde.md'): string {
  const lines = text.split('\n');
  const fence = lines[0]?.replace(/\r$/, '');
  if (fence !== '---' && fence !== '+++') throw new BundleInvalidError(`bundle entry "${file}": no front matter to rewrite the id in`, { where: { file } });
  for (let i = 1; i < lines.length; i++) {
    const cr = lines[i]!.endsWith('\r') ? '\r' : '';
    const line = lines[i]!.slice(0, lines[i]!.length - cr.length);
    if (line === fence || /^\s*\[/.test(line)) break; // end of the front matter, or of its top-level keys
    const m = /^(\s*id\s*=\s*)("[^"\\]*"|'[^']*')(.*)$/.exec(line);
    if (m !== null) {
      lines[i] = `${m[1]}"${id}"${m[3]}${cr}`;
      return lines.join('\n');
    }
  }
  throw new BundleInvalidError(`bundle entry "${file}": its id is not written as one simple id = "…" line, so it cannot be changed: install it under its own id`, { where: { file, key: 'id' } });
}

function exists(id: string, message: string): KowalskiError {
  return new KowalskiError('KW_ERR_HORDE_EXISTS', `a horde with id "${id}" ${message}`);
}

/** The catalog entries that hold `id`; refuses when they may not be replaced. */
function holdersOf(entries: CatalogEntry[], id: string, replace: boolean): CatalogEntry[] {
  const holders = entries.filter((e) => e.id === id);
  const builtin = holders.find((e) => e.origin === 'builtin');
  if (builtin !== undefined) throw exists(id, 'is built in and can never be replaced: install it under a new id (--id, or "id" in the install request)');
  const first = holders[0];
  if (first !== undefined && !replace) throw exists(id, `is already installed (${first.origin}, in ${first.dir}): choose another id, or replace it`);
  return holders;
}

async function pathExists(p: string): Promise<boolean> {
  return fs.lstat(p).then(() => true, () => false);
}

/**
 * Install a staged bundle. Throws KW_ERR_USAGE (a bad id), KW_ERR_HORDE_EXISTS (the id is
 * taken and `replace` is not set, or is a built-in's, or the folder `<hordes>/<id>` holds
 * something else). The staged files are left as they were: the caller discards them.
 */
export async function installBundle(staged: StagedBundle, options: InstallOptions = {}): Promise<Installed> {
  const source = staged.report.horde.id;
  const id = options.id ?? source;
  if (!INSTALL_ID.test(id)) throw new KowalskiError('KW_ERR_USAGE', `the id "${id}" is not valid: lower-case letters, digits and -, starting with a letter or digit, at most 100 characters`);
  const replace = options.replace === true;
  const hordes = dataPaths(staged.dataDir).hordes;
  const target = path.join(hordes, id);
  const holders = holdersOf((await staged.catalog()).entries, id, replace);
  if (!holders.some((h) => h.dir === target) && (await pathExists(target))) throw exists(id, `cannot be installed: ${target} already exists and holds something else`);

  const work = await makeScratch(staged.dataDir, 'install');
  const moved: { from: string; to: string }[] = [];
  let keepWork = false;
  try {
    const folder = path.join(work, 'horde');
    await fs.cp(staged.dir, folder, { recursive: true, errorOnExist: true, force: false });
    if (id !== source) {
      const manifest = (await manifestOf(folder)) ?? 'horde.md';
      const file = path.join(folder, manifest);
      await fs.writeFile(file, rewriteId(await fs.readFile(file, 'utf8'), id, manifest));
    }
    const marker: ImportMarker = { importedAt: (options.now?.() ?? new Date()).toISOString(), sha256: staged.sha256, sourceHordeId: source };
    await fs.writeFile(path.join(folder, IMPORT_MARKER), `${JSON.stringify(marker, null, 2)}\n`, { flag: 'wx' });
    const check = await loadHorde(folder, { knownKinds: staged.knownKinds, origin: 'imported' });
    if (!check.ok || check.horde.id !== id) {
      throw new BundleInvalidError(`the horde does not load under the id "${id}":\n${check.ok ? `its id reads "${check.horde.id}"` : formatProblems(check.problems)}`, { where: { file: 'horde.md', key: 'id' } });
    }

    await fs.mkdir(hordes, { recursive: true, mode: 0o700 });
    for (const [i, holder] of holders.entries()) {
      const aside = path.join(work, `replaced-${i}`);
      await fs.rename(holder.dir, aside);
      moved.push({ from: holder.dir, to: aside });
    }
    try {
      if (await pathExists(target)) throw exists(id, `cannot be installed: ${target} appeared meanwhile`);
      await fs.rename(folder, target);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      const failure = code === 'ENOTEMPTY' || code === 'EEXIST' ? exists(id, `cannot be installed: ${target} appeared meanwhile`) : err;
      throw await putBack(moved, failure, () => (keepWork = true));
    }
    return { hordeId: id, dir: target, replaced: moved.map((m) => m.from) };
  } catch (err) {
    if (moved.length > 0 && !keepWork) throw await putBack(moved, err, () => (keepWork = true));
    throw err;
  } finally {
    if (!keepWork) await removeScratch(work);
  }
}

/** Move replaced folders back after a failed install; if one cannot be, keep it (and say where) rather than lose it. */
async function putBack(moved: { from: string; to: string }[], failure: unknown, keep: () => void): Promise<unknown> {
  const stuck: string[] = [];
  for (const m of moved.splice(0).reverse()) {
    try {
      await fs.rename(m.to, m.from);
    } catch {
      stuck.push(`${m.from} is now ${m.to}`);
    }
  }
  if (stuck.length === 0) return failure;
  keep();
  return new KowalskiError('KW_ERR_INTERNAL', `the install failed (${messageOf(failure)}) and the replaced horde could not be moved back: ${stuck.join('; ')}`, { cause: failure });
}
