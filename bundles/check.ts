/**
 * Checking a bundle: everything about it is checked before it is trusted with a single
 * write — the archive's structure and entry count, every entry name and type, the sizes
 * counted while inflating, the manifest — and only then are its files written to a scratch
 * folder under the data directory's `tmp/`, where the engine's loader validates the horde.
 * Plain data in and out and only the loader of the engine, so it can run in its own thread
 * (review-process.ts). Nothing in a bundle runs here.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import type { Progress } from '../contract/progress.js';
import { NO_PROGRESS } from '../core/index.js';
import { countProblems, formatProblems, loadHorde, manifestAmong } from '../engine/horde/index.js';
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

export interface CheckOptions {
  /** The data directory: scratch files go to its `tmp/`. */
  dataDir: string;
  /** Step kinds a horde may use. */
  knownKinds: ReadonlySet<string>;
  /** Default: DEFAULT_BUNDLE_LIMITS. */
  limits?: Partial<BundleLimits>;
}

/** What a check finds out about a bundle: the review's report without `existing`. */
export interface CheckedReport {
  manifest: Manifest;
  horde: ReviewedHorde;
  /** Every command its steps will ask to run (verify_command). */
  commands: string[];
  tools: string[];
  mcpServers: string[];
  warnings: { code: string; file: string; key?: string; message: string }[];
}

/** A checked bundle: its report, the sha256 (hex) of its bytes, and the scratch folder holding exactly its checked files. */
export interface CheckedBundle {
  report: CheckedReport;
  sha256: string;
  dir: string;
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

async function writeFiles(dir: string, files: ReadonlyMap<string, Uint8Array>, onProgress: Progress): Promise<void> {
  let done = 0;
  onProgress({ phase: 'files', done, total: files.size });
  for (const [rel, data] of files) {
    const abs = path.join(dir, ...rel.split('/'));
    // The names were checked; this is the last line of defence all the same.
    if (path.relative(dir, abs).startsWith('..') || path.isAbsolute(path.relative(dir, abs))) throw rejectEntry(rel, 'the name leaves the horde folder');
    await fs.mkdir(path.dirname(abs), { recursive: true });
    await fs.writeFile(abs, data, { flag: 'wx', mode: 0o644 });
    onProgress({ phase: 'files', done: ++done, total: files.size });
  }
}

/**
 * Everything a review checks but whether the id is taken: the bundle's files staged in a
 * scratch folder, the report without `existing`. Throws KW_ERR_BUNDLE_INVALID (then nothing
 * is left on disk). `onProgress` hears phases `entries` (inflated), `files` (staged) and
 * `horde` (0 of 1 while the horde inside is validated, 1 of 1 once it is).
 */
export async function checkBundle(bytes: Uint8Array, options: CheckOptions, onProgress: Progress = NO_PROGRESS): Promise<CheckedBundle> {
  const limits = limitsWith(options.limits);
  const knownKinds = options.knownKinds;

  const items = readZip(bytes, limits, checkEntries, onProgress);
  const files = new Map<string, Uint8Array>();
  let manifestBytes: Uint8Array | undefined;
  for (const { entry, data } of items) {
    if (entry.type === 'directory') continue;
    if (entry.name === MANIFEST_NAME) manifestBytes = data;
    else files.set(entry.name, data);
  }
  const manifest = parseManifest(manifestBytes);
  checkManifestFiles(manifest, files);
  const manifestFile = manifestAmong(files);
  if (manifestFile === undefined) throw new BundleInvalidError('bundle refused: it has no horde.md (or 1.x app.md) at its top level; nothing was written', { where: { file: 'horde.md' } });

  const dir = await makeScratch(options.dataDir, 'bundle');
  try {
    await writeFiles(dir, files, onProgress);
    onProgress({ phase: 'horde', done: 0, total: 1 });
    const loaded = await loadHorde(dir, { knownKinds });
    if (!loaded.ok) {
      const errors = loaded.problems.filter((p) => p.severity === 'error');
      const first = errors[0];
      const count = countProblems(errors).errors;
      throw new BundleInvalidError(`bundle refused: the horde in it is invalid (${count} error${count === 1 ? '' : 's'}):\n${formatProblems(errors).split('\n').map(printable).join('\n')}\nnothing was written`, {
        problems: loaded.problems,
        ...(first === undefined ? {} : { where: { file: first.file, ...(first.key === undefined ? {} : { key: first.key }), ...(first.line === undefined ? {} : { line: first.line }) } }),
      });
    }
    if (loaded.warnings.some((w) => w.code === 'KW_WARN_ID_MISSING')) {
      throw new BundleInvalidError(`bundle entry "${manifestFile}": it must declare its id (id = "…"); nothing was written`, { where: { file: manifestFile, key: 'id' } });
    }
    const horde = loaded.horde;
    const wants = wantsOf(horde);
    checkManifestHorde(manifest, horde.id, wants);
    const report: CheckedReport = {
      manifest,
      horde: reviewedHorde(horde),
      ...wants,
      warnings: loaded.warnings.map((w) => ({ code: w.code, file: w.file, ...(w.key === undefined ? {} : { key: w.key }), message: w.message })),
    };
    onProgress({ phase: 'horde', done: 1, total: 1 });
    return { report, sha256: sha256Hex(bytes), dir };
  } catch (err) {
    await removeScratch(dir);
    throw err;
  }
}
