/**
 * Export: a horde folder as a `.kwf.zip` — its regular files (dot-files such as the import
 * marker left out, symlinks refused, never followed) plus `kwf-manifest.json`. The bytes
 * are deterministic: entries sorted, one fixed time (1980-01-01 00:00), fixed attributes
 * (a Unix regular file, 0644) and one compression level, so the same folder always gives
 * the same bundle, whatever its files' mtimes. A folder that an import would refuse
 * (a name, a size, a count) is refused here already.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { zipSync } from 'fflate';
import type { Zippable } from 'fflate';
import { KowalskiError, formatBytes } from '../core/index.js';
import { formatProblems, loadHorde } from '../engine/index.js';
import type { BundleLimits } from './limits.js';
import { limitsWith } from './limits.js';
import { MANIFEST_NAME, buildManifest, encodeManifest } from './manifest.js';
import { checkEntryName, findCollision } from './names.js';
import { wantsOf } from './summary.js';

export interface ExportOptions {
  /** Step kinds the horde may use (default: the loader's built-in list). */
  knownKinds?: ReadonlySet<string>;
  /** Default: DEFAULT_BUNDLE_LIMITS (an export never makes a bundle the import would refuse). */
  limits?: Partial<BundleLimits>;
}

/** Local time, so the DOS date written is 1980-01-01 00:00:00 in every time zone. */
const FIXED_MTIME = new Date(1980, 0, 1, 0, 0, 0);
const ENTRY_OPTIONS = { level: 6, mtime: FIXED_MTIME, os: 3, attrs: 0o100644 << 16 } as const;

const invalid = (file: string, message: string): KowalskiError => new KowalskiError('KW_ERR_HORDE_INVALID', `cannot export ${JSON.stringify(file)}: ${message}`, { where: { file } });

/** The folder's regular files, `/`-separated relative paths, sorted; dot-files skipped. */
async function collect(dir: string, limits: BundleLimits): Promise<Map<string, Uint8Array>> {
  const files = new Map<string, Uint8Array>();
  let total = 0;
  const walk = async (rel: string): Promise<void> => {
    const names = (await fs.readdir(path.join(dir, rel))).sort();
    for (const name of names) {
      if (name.startsWith('.')) continue;
      const relPath = rel === '' ? name : `${rel}/${name}`;
      const abs = path.join(dir, relPath);
      const stat = await fs.lstat(abs);
      if (stat.isSymbolicLink()) throw invalid(relPath, 'it is a symbolic link; a bundle holds only regular files (copy the file in place of the link)');
      if (stat.isDirectory()) {
        await walk(relPath);
        continue;
      }
      if (!stat.isFile()) throw invalid(relPath, 'it is not a regular file');
      const check = checkEntryName(relPath);
      if (!check.ok) throw invalid(relPath, `${check.rule}, so no import would accept it: rename it`);
      if (files.size + 2 > limits.maxEntries) throw new KowalskiError('KW_ERR_HORDE_TOO_LARGE', `cannot export ${dir}: it holds more than ${limits.maxEntries - 1} files`);
      if (stat.size > limits.maxEntryBytes) throw new KowalskiError('KW_ERR_HORDE_TOO_LARGE', `cannot export ${JSON.stringify(relPath)}: it is ${formatBytes(stat.size)}, a bundle entry may hold at most ${formatBytes(limits.maxEntryBytes)}`, { where: { file: relPath } });
      total += stat.size;
      if (total > limits.maxTotalBytes) throw new KowalskiError('KW_ERR_HORDE_TOO_LARGE', `cannot export ${dir}: its files hold more than ${formatBytes(limits.maxTotalBytes)}`);
      files.set(relPath, await fs.readFile(abs));
    }
  };
  await walk('');
  const clash = findCollision([...files.keys()].map((p) => ({ path: p, directory: false })));
  if (clash !== undefined) throw invalid(clash.name, `${clash.rule}, so no import would accept it: rename it`);
  return files;
}

/** The horde in `dir` (whose id must be `hordeId`) as `.kwf.zip` bytes. Throws KW_ERR_HORDE_INVALID / KW_ERR_HORDE_TOO_LARGE / KW_ERR_USAGE. */
export async function exportBundle(dir: string, hordeId: string, options: ExportOptions = {}): Promise<Uint8Array> {
  const limits = limitsWith(options.limits);
  const abs = path.resolve(dir);
  const loaded = await loadHorde(abs, options.knownKinds === undefined ? {} : { knownKinds: options.knownKinds });
  if (!loaded.ok) {
    const first = loaded.problems.find((p) => p.severity === 'error');
    throw new KowalskiError('KW_ERR_HORDE_INVALID', `cannot export ${abs}: the horde is invalid:\n${formatProblems(loaded.problems.filter((p) => p.severity === 'error'))}`, first === undefined ? {} : { where: { file: first.file, ...(first.line === undefined ? {} : { line: first.line }) } });
  }
  if (loaded.warnings.some((w) => w.code === 'KW_WARN_ID_MISSING')) throw new KowalskiError('KW_ERR_HORDE_INVALID', `cannot export ${abs}: ${loaded.horde.manifest ?? 'horde.md'} must declare its id (write id = "${loaded.horde.id}")`, { where: { file: loaded.horde.manifest ?? 'horde.md', key: 'id' } });
  if (loaded.horde.id !== hordeId) throw new KowalskiError('KW_ERR_USAGE', `${abs} holds the horde "${loaded.horde.id}", not "${hordeId}"`);

  const files = await collect(abs, limits);
  if (files.has(MANIFEST_NAME)) throw invalid(MANIFEST_NAME, 'the name is kept for the bundle\'s own manifest: rename the file');
  const manifest = buildManifest(hordeId, files, wantsOf(loaded.horde));
  const all = new Map(files).set(MANIFEST_NAME, encodeManifest(manifest));
  const zippable: Zippable = {};
  for (const name of [...all.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) zippable[name] = [all.get(name)!, ENTRY_OPTIONS];
  return zipSync(zippable);
}
