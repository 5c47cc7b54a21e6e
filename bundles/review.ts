/**
 * Review: everything about a bundle is checked before it is trusted with a single write —
 * the archive's structure and entry count, every entry name and type, the sizes counted
 * while inflating, the manifest — and only then are its files written to a scratch folder
 * under the data directory's `tmp/`, where the engine's loader validates the horde. A
 * refusal leaves nothing behind. Nothing in a bundle runs at review (or at install).
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { builtinKindNames, catalogOf, formatProblems, loadHorde } from '../engine/index.js';
import type { Catalog } from '../engine/index.js';
import type { BundleLimits } from './limits.js';
import { limitsWith } from './limits.js';
import { MANIFEST_NAME, checkManifestFiles, checkManifestHorde, parseManifest, sha256Hex } from './manifest.js';
import type { Manifest } from './manifest.js';
import { checkEntryName, findCollision } from './names.js';
import { printable } from './printable.js';
import { BundleInvalidError, rejectEntry } from './reject.js';
import { makeScratch, removeScratch } from './scratch.js';
import { reviewedHorde, wantsOf } from './summary.js';
import type { ReviewedHorde } from './summary.js';
import type { ZipEntry } from './zip-directory.js';
import { readZip } from './zip-read.js';

export interface ReviewOptions {
  /** The data directory: scratch files go to its `tmp/`, the catalog is its own. */
  dataDir: string;
  /** Step kinds a horde may use (default: the built-in ones). */
  knownKinds?: ReadonlySet<string>;
  /** The catalog that decides whether an id is taken (default: the data directory's, with the package's built-ins). */
  catalog?: () => Promise<Catalog>;
  /** Default: DEFAULT_BUNDLE_LIMITS. */
  limits?: Partial<BundleLimits>;
}

export type Origin = 'builtin' | 'user' | 'imported';

/** What a person is shown before installing: the `BundleReview` of docs/api.md without its staging fields. */
export interface BundleReport {
  manifest: Manifest;
  horde: ReviewedHorde;
  /** Every command its steps will ask to run (verify_command). */
  commands: string[];
  tools: string[];
  mcpServers: string[];
  warnings: { code: string; file: string; key?: string; message: string }[];
  /** The bundle's id is already taken. */
  existing: { hordeId: string; origin: Origin } | null;
}

/** A reviewed bundle: its report, and its checked files in a scratch folder until installed or discarded. */
export interface StagedBundle {
  report: BundleReport;
  /** sha256 (hex) of the bundle's bytes. */
  sha256: string;
  /** The scratch folder holding exactly the bundle's checked files. */
  dir: string;
  dataDir: string;
  knownKinds: ReadonlySet<string>;
  catalog: () => Promise<Catalog>;
}

/** Entry names and types, decided on the directory alone, before anything is inflated. */
function checkEntries(entries: readonly ZipEntry[]): void {
  const names: { path: string; directory: boolean }[] = [];
  for (const entry of entries) {
    const check = checkEntryName(entry.name);
    if (!check.ok) throw rejectEntry(entry.name, check.rule);
    if (entry.type === 'symlink') throw rejectEntry(entry.name, 'the entry is a symbolic link; a bundle holds only regular files');
    if (entry.type === 'other') throw rejectEntry(entry.name, `the entry is not a regular file (Unix mode ${(entry.unixMode ?? 0).toString(8)})`);
    if (entry.type === 'directory' && !check.directory) throw rejectEntry(entry.name, 'the entry is marked as a folder but its name does not end in /');
    names.push({ path: check.path, directory: check.directory });
  }
  const clash = findCollision(names);
  if (clash !== undefined) throw rejectEntry(clash.name, clash.rule);
}

async function writeFiles(dir: string, files: ReadonlyMap<string, Uint8Array>): Promise<void> {
  for (const [rel, data] of files) {
    const abs = path.join(dir, ...rel.split('/'));
    // The names were checked; this is the last line of defence all the same.
    if (path.relative(dir, abs).startsWith('..') || path.isAbsolute(path.relative(dir, abs))) throw rejectEntry(rel, 'the name leaves the horde folder');
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await fs.writeFile(abs, data, { flag: 'wx', mode: 0o644 });
  }
}

function existingOf(catalog: Catalog, id: string): BundleReport['existing'] {
  const entry = catalog.entries.find((e) => e.id === id);
  if (entry === undefined || entry.origin === 'path') return null;
  return { hordeId: id, origin: entry.origin };
}

/**
 * Check a bundle and stage its files. Throws KW_ERR_BUNDLE_INVALID naming the entry and the
 * rule (for invalid horde content: every problem with its file, key and line, also in
 * `BundleInvalidError.problems`); then nothing is left on disk. The caller owns the
 * returned scratch folder: install it or `discardBundle` it.
 */
export async function reviewBundle(bytes: Uint8Array, options: ReviewOptions): Promise<StagedBundle> {
  const limits = limitsWith(options.limits);
  const knownKinds = options.knownKinds ?? builtinKindNames();
  const catalog = options.catalog ?? (() => catalogOf({ dataDir: options.dataDir, knownKinds }));

  const items = readZip(bytes, limits, checkEntries);
  const files = new Map<string, Uint8Array>();
  let manifestBytes: Uint8Array | undefined;
  for (const { entry, data } of items) {
    if (entry.type === 'directory') continue;
    if (entry.name === MANIFEST_NAME) manifestBytes = data;
    else files.set(entry.name, data);
  }
  const manifest = parseManifest(manifestBytes);
  checkManifestFiles(manifest, files);
  if (!files.has('horde.md')) throw new BundleInvalidError('bundle refused: it has no horde.md at its top level; nothing was written', { where: { file: 'horde.md' } });

  const dir = await makeScratch(options.dataDir, 'bundle');
  try {
    await writeFiles(dir, files);
    const loaded = await loadHorde(dir, { knownKinds });
    if (!loaded.ok) {
      const errors = loaded.problems.filter((p) => p.severity === 'error');
      const first = errors[0];
      throw new BundleInvalidError(`bundle refused: the horde in it is invalid (${errors.length} error${errors.length === 1 ? '' : 's'}):\n${formatProblems(errors).split('\n').map(printable).join('\n')}\nnothing was written`, {
        problems: loaded.problems,
        ...(first === undefined ? {} : { where: { file: first.file, ...(first.key === undefined ? {} : { key: first.key }), ...(first.line === undefined ? {} : { line: first.line }) } }),
      });
    }
    if (loaded.warnings.some((w) => w.code === 'KW_WARN_ID_MISSING')) {
      throw new BundleInvalidError('bundle entry "horde.md": it must declare its id (id = "…"); nothing was written', { where: { file: 'horde.md', key: 'id' } });
    }
    const horde = loaded.horde;
    const wants = wantsOf(horde);
    checkManifestHorde(manifest, horde.id, wants);
    const report: BundleReport = {
      manifest,
      horde: reviewedHorde(horde),
      ...wants,
      warnings: loaded.warnings.map((w) => ({ code: w.code, file: w.file, ...(w.key === undefined ? {} : { key: w.key }), message: w.message })),
      existing: existingOf(await catalog(), horde.id),
    };
    return { report, sha256: sha256Hex(bytes), dir, dataDir: options.dataDir, knownKinds, catalog };
  } catch (err) {
    await removeScratch(dir);
    throw err;
  }
}

/** Drop a staged bundle's scratch folder. */
export async function discardBundle(staged: StagedBundle): Promise<void> {
  await removeScratch(staged.dir);
}
