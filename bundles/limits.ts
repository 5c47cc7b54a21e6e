/**
 * The bounds a bundle must stay within. A bundle comes from elsewhere: every one of these
 * is checked before anything is written, and the byte bounds are counted on the bytes
 * actually inflated, never taken from what the archive declares.
 */
export interface BundleLimits {
  /** Max size of the whole `.kwf.zip`, in bytes (default 20 MiB, the API's body limit). */
  maxBundleBytes: number;
  /** Max entries in the central directory, folders included (default 1,000). Checked before anything is inflated. */
  maxEntries: number;
  /** Max inflated bytes of one entry (default 5 MiB). */
  maxEntryBytes: number;
  /** Max inflated bytes of all entries together (default 20 MiB). */
  maxTotalBytes: number;
  /** Max ratio of inflated to compressed bytes of one entry (default 100, i.e. 100:1)… */
  maxRatio: number;
  /** …checked once an entry has inflated past this many bytes (default 256 KiB): small files may compress well. */
  ratioFloorBytes: number;
}

export const DEFAULT_BUNDLE_LIMITS: Readonly<BundleLimits> = Object.freeze({
  maxBundleBytes: 20 * 1024 * 1024,
  maxEntries: 1000,
  maxEntryBytes: 5 * 1024 * 1024,
  maxTotalBytes: 20 * 1024 * 1024,
  maxRatio: 100,
  ratioFloorBytes: 256 * 1024,
});

export function limitsWith(overrides: Partial<BundleLimits> = {}): BundleLimits {
  return { ...DEFAULT_BUNDLE_LIMITS, ...overrides };
}

