/**
 * Bundles: `.kwf.zip` export, review and import of hordes — the only place that touches
 * fflate. A bundle comes from elsewhere: it is checked whole (names, links, sizes counted
 * while inflating, the manifest, the horde itself) before anything is written, and
 * nothing in it runs at review or install.
 */
export { exportBundle } from './export.js';
export type { ExportOptions } from './export.js';
export { reviewBundle, discardBundle } from './review.js';
export type { BundleReport, ReviewOptions, StagedBundle, Origin } from './review.js';
export { checkBundle } from './check.js';
export type { CheckOptions, CheckedBundle, CheckedReport } from './check.js';
export { reviewProcess } from './review-process.js';
export type { BundleReviewer } from './review-process.js';
export { installBundle, rewriteId, INSTALL_ID } from './install.js';
export type { ImportMarker, InstallOptions, Installed } from './install.js';
export { BundleStaging, REVIEW_ID_PATTERN } from './staging.js';
export type { StagingOptions } from './staging.js';
export { MANIFEST_NAME } from './manifest.js';
export type { Manifest, ManifestFile } from './manifest.js';
export type { HordeWants, ReviewedHorde } from './summary.js';
export { DEFAULT_BUNDLE_LIMITS } from './limits.js';
export type { BundleLimits } from './limits.js';
export { BundleInvalidError } from './reject.js';
export { checkEntryName, collisionKey, findCollision } from './names.js';
export { printable } from './printable.js';
