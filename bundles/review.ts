/**
 * Review: a bundle checked (check.ts: names, links, sizes, the manifest, the horde itself)
 * and staged, then told whether its id is already taken in the catalog. A refusal leaves
 * nothing behind. Nothing in a bundle runs at review (or at install).
 */
import type { Progress } from '../contract/progress.js';
import { NO_PROGRESS } from '../core/index.js';
import { builtinKindNames, catalogOf } from '../engine/index.js';
import type { Catalog } from '../engine/index.js';
import { checkBundle } from './check.js';
import type { CheckedBundle, CheckedReport } from './check.js';
import type { BundleLimits } from './limits.js';
import { removeScratch } from './scratch.js';

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
export interface BundleReport extends CheckedReport {
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

function existingOf(catalog: Catalog, id: string): BundleReport['existing'] {
  const entry = catalog.entries.find((e) => e.id === id);
  if (entry === undefined || entry.origin === 'path') return null;
  return { hordeId: id, origin: entry.origin };
}

/**
 * Check a bundle and stage its files. Throws KW_ERR_BUNDLE_INVALID naming the entry and the
 * rule (for invalid horde content: the problems with their file, key and line — the loader's
 * bounded list — also in `BundleInvalidError.problems`); then nothing is left on disk. The
 * caller owns the returned scratch folder: install it or `discardBundle` it. `onProgress`:
 * as `checkBundle`'s.
 */
export async function reviewBundle(bytes: Uint8Array, options: ReviewOptions, onProgress: Progress = NO_PROGRESS): Promise<StagedBundle> {
  const knownKinds = options.knownKinds ?? builtinKindNames();
  const checked = await checkBundle(bytes, { dataDir: options.dataDir, knownKinds, ...(options.limits === undefined ? {} : { limits: options.limits }) }, onProgress);
  return withExisting(checked, options);
}

/** A checked bundle made a reviewed one: is its id taken in the catalog? (On failure its scratch folder is removed.) */
export async function withExisting(checked: CheckedBundle, options: ReviewOptions): Promise<StagedBundle> {
  const knownKinds = options.knownKinds ?? builtinKindNames();
  const catalog = options.catalog ?? (() => catalogOf({ dataDir: options.dataDir, knownKinds }));
  try {
    const report: BundleReport = { ...checked.report, existing: existingOf(await catalog(), checked.report.horde.id) };
    return { report, sha256: checked.sha256, dir: checked.dir, dataDir: options.dataDir, knownKinds, catalog };
  } catch (err) {
    await removeScratch(checked.dir);
    throw err;
  }
}

/** Drop a staged bundle's scratch folder. */
export async function discardBundle(staged: StagedBundle): Promise<void> {
  await removeScratch(staged.dir);
}
