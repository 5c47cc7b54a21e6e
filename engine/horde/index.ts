/**
 * The horde loader and validator, the catalog, and the helpers the engine shares with
 * them (placeholders, folder hash). The only public face of engine/horde.
 */
export { loadHorde, DEFAULT_KNOWN_TOOLS, DISPLAY_KEYS, HORDE_ID } from './load.js';
export type { LoadOptions } from './load.js';
export { listHordes, resolveHordeRef, requireHorde, IMPORT_MARKER } from './catalog.js';
export { closestIds, didYouMean } from './suggest.js';
export type { Catalog, CatalogEntry, ListOptions } from './catalog.js';
export { formatProblems, ProblemList, Source } from './problems.js';
export { Fields, isTable } from './fields.js';
export { countProblems, MAX_PROBLEMS, MAX_PROBLEMS_PER_FILE } from './problem-cap.js';
export { splitFrontMatter, toPlain } from './frontmatter.js';
export type { FrontMatter, FrontMatterResult } from './frontmatter.js';
export { STEP_NAME } from './graph.js';
export { FS_TOOL } from './steps.js';
export { manifestAmong, manifestOf, MANIFEST_FILES } from './manifest.js';
export type { ManifestFile } from './manifest.js';
export { TRIGGER_NAME, DEFAULT_DEBOUNCE_MS, cronProblem, timezoneProblem } from './triggers.js';
export { scanPlaceholders } from './placeholders.js';
export type { Placeholder, PlaceholderScan } from './placeholders.js';
export { hashFolder, DEFAULT_HASH_LIMITS } from './hash.js';
export type { HashLimits, HashResult } from './hash.js';
export { checkRelPath } from './paths.js';
export type { RelPathResult } from './paths.js';
