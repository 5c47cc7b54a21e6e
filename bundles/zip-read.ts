/**
 * The untrusted reader: a `.kwf.zip` into its files, in memory, with every bound counted
 * on the bytes actually produced. Deflated entries go through fflate's streaming `Inflate`
 * in small pushes; each output chunk is counted against the entry's cap, the total cap
 * and the compression ratio, and the first one passed aborts at once — a bomb whose header
 * declares 100 bytes is stopped by the count, not by the header. An entry must inflate to
 * exactly its declared size and CRC-32.
 */
import { crc32 } from 'node:zlib';
import { Inflate } from 'fflate';
import type { Progress } from '../contract/progress.js';
import { NO_PROGRESS, formatBytes, messageOf } from '../core/index.js';
import type { BundleLimits } from './limits.js';
import { rejectBundle, rejectEntry } from './reject.js';
import type { BundleInvalidError } from './reject.js';
import { readDirectory } from './zip-directory.js';
import type { ZipEntry } from './zip-directory.js';

/** One entry of a read archive. Folder entries keep their name (with the trailing `/`) and no data. */
export interface ZipItem {
  entry: ZipEntry;
  data: Uint8Array;
}

/** Compressed bytes handed to the inflater at a time: bounds what one push can produce (deflate peaks near 1032:1). */
const PUSH_BYTES = 1024;

/** Why inflating stopped early: thrown from inside `ondata`, caught around `push`. */
class Stop extends Error {}

interface Budget {
  /** Bytes produced so far by all entries. */
  total: number;
}

function inflateOne(bytes: Uint8Array, entry: ZipEntry, budget: Budget, limits: BundleLimits): Uint8Array {
  const input = bytes.subarray(entry.dataStart, entry.dataStart + entry.compressedSize);
  const chunks: Uint8Array[] = [];
  let count = 0;
  let crc = 0;
  let refusal: BundleInvalidError | undefined;
  const take = (chunk: Uint8Array): void => {
    count += chunk.length;
    budget.total += chunk.length;
    if (count > limits.maxEntryBytes) refusal = rejectEntry(entry.name, `inflates past ${formatBytes(limits.maxEntryBytes)}, the most one entry may hold (its header declares ${formatBytes(entry.size)})`);
    else if (budget.total > limits.maxTotalBytes) refusal = rejectEntry(entry.name, `inflating it takes the bundle past ${formatBytes(limits.maxTotalBytes)} in all`);
    else if (count > limits.ratioFloorBytes && count > limits.maxRatio * Math.max(1, entry.compressedSize)) {
      refusal = rejectEntry(entry.name, `inflates more than ${limits.maxRatio}:1 (${formatBytes(entry.compressedSize)} to over ${formatBytes(count)}): a compression bomb`);
    } else if (count > entry.size) refusal = rejectEntry(entry.name, `inflates past the ${formatBytes(entry.size)} its header declares (inconsistent archive or a bomb)`);
    if (refusal !== undefined) throw new Stop();
    crc = crc32(chunk, crc);
    chunks.push(chunk);
  };

  if (entry.method === 0) {
    take(input);
  } else {
    const inflater = new Inflate((chunk) => {
      if (chunk.length > 0) take(chunk);
    });
    try {
      if (input.length === 0) inflater.push(new Uint8Array(0), true);
      for (let at = 0; at < input.length; at += PUSH_BYTES) {
        inflater.push(input.subarray(at, at + PUSH_BYTES), at + PUSH_BYTES >= input.length);
      }
    } catch (err) {
      if (err instanceof Stop && refusal !== undefined) throw refusal;
      throw rejectEntry(entry.name, `the compressed data is broken (${messageOf(err)})`);
    }
  }
  if (count !== entry.size) throw rejectEntry(entry.name, `inflates to ${formatBytes(count)}, but its header declares ${formatBytes(entry.size)} (truncated or inconsistent archive)`);
  if (crc >>> 0 !== entry.crc) throw rejectEntry(entry.name, `CRC-32 mismatch (the data is ${(crc >>> 0).toString(16)}, the header says ${entry.crc.toString(16)}): the archive is damaged`);
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/**
 * Every entry of `bytes` with its inflated data. `check` runs on the directory (names,
 * entry types) before a single byte is inflated. `onProgress` hears phase `entries`: each
 * entry inflated, of all of them. Throws KW_ERR_BUNDLE_INVALID.
 */
export function readZip(bytes: Uint8Array, limits: BundleLimits, check: (entries: readonly ZipEntry[]) => void = () => {}, onProgress: Progress = NO_PROGRESS): ZipItem[] {
  if (bytes.length > limits.maxBundleBytes) throw rejectBundle(`it is ${formatBytes(bytes.length)}; a bundle may be at most ${formatBytes(limits.maxBundleBytes)}`);
  const entries = readDirectory(bytes, limits.maxEntries);
  check(entries);
  // What the headers declare is checked first (cheap, and honest bombs stop here); what
  // they produce is counted while inflating (and liars stop there).
  let declared = 0;
  for (const entry of entries) {
    if (entry.type === 'directory' && (entry.size !== 0 || entry.compressedSize > 2)) throw rejectEntry(entry.name, 'a folder entry carries data');
    if (entry.size > limits.maxEntryBytes) throw rejectEntry(entry.name, `declares ${formatBytes(entry.size)}; one entry may hold at most ${formatBytes(limits.maxEntryBytes)}`);
    declared += entry.size;
    if (declared > limits.maxTotalBytes) throw rejectEntry(entry.name, `the entries declare more than ${formatBytes(limits.maxTotalBytes)} in all`);
  }
  const budget: Budget = { total: 0 };
  const total = entries.length;
  onProgress({ phase: 'entries', done: 0, total });
  return entries.map((entry, i) => {
    const item = { entry, data: entry.type === 'directory' ? new Uint8Array(0) : inflateOne(bytes, entry, budget, limits) };
    onProgress({ phase: 'entries', done: i + 1, total });
    return item;
  });
}
