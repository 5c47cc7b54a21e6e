/**
 * The structure of an untrusted zip archive — the end record, the central directory and
 * every local header — read and cross-checked without inflating a byte. The entry count
 * is checked first, so a directory of 100,000 entries costs nothing. Only single-disk,
 * non-ZIP64, unencrypted archives with stored or deflated entries are accepted: a horde
 * bundle needs nothing else.
 *
 * An entry's type is read from its external attributes whatever system the zip says it was
 * made on: a nonzero high half is a Unix mode (any zip tool may write one, and a reader on
 * Unix would honour it), and the low byte's DOS folder bit counts too.
 */
import { formatBytes } from '../core/index.js';
import { rejectBundle, rejectEntry } from './reject.js';

/** What the central directory says about one entry, checked against its local header. */
export interface ZipEntry {
  /** As written (decoded as UTF-8); not yet checked as a path. */
  name: string;
  /** 0 stored, 8 deflated. */
  method: 0 | 8;
  crc: number;
  compressedSize: number;
  /** As declared: never trusted for a bound, only compared with what inflates. */
  size: number;
  /** Offset of the entry's compressed bytes. */
  dataStart: number;
  /** What the external attributes say it is. */
  type: 'file' | 'directory' | 'symlink' | 'other';
  /** The Unix mode (the external attributes' high 16 bits), when nonzero, whatever system made the zip. */
  unixMode?: number;
}

const SIG_EOCD = 0x06054b50;
const SIG_ZIP64_LOCATOR = 0x07064b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_LOCAL = 0x04034b50;
const EOCD_SIZE = 22;
const CENTRAL_SIZE = 46;
const LOCAL_SIZE = 30;
const FLAG_ENCRYPTED = 0x0001;
const FLAG_DESCRIPTOR = 0x0008;
const FLAG_STRONG_ENCRYPTION = 0x0040;
const FLAG_MASKED_HEADER = 0x2000;
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;
const DOS_DIRECTORY = 0x10;
const EXTRA_ZIP64 = 0x0001;

const utf8 = new TextDecoder('utf-8', { fatal: true });

class Reader {
  readonly view: DataView;
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  u16(at: number): number {
    return this.view.getUint16(at, true);
  }
  u32(at: number): number {
    return this.view.getUint32(at, true);
  }
}

/** Offset of the end-of-central-directory record: the last signature whose comment ends exactly at the end. */
function findEnd(r: Reader): number {
  const len = r.bytes.length;
  if (len < EOCD_SIZE) throw rejectBundle(`it is not a zip archive (${len} bytes, too short for one)`);
  const lowest = Math.max(0, len - EOCD_SIZE - 0xffff);
  for (let at = len - EOCD_SIZE; at >= lowest; at--) {
    if (r.u32(at) === SIG_EOCD && at + EOCD_SIZE + r.u16(at + 20) === len) return at;
  }
  throw rejectBundle('it is not a zip archive, or it is truncated (no end-of-central-directory record at its end)');
}

function decodeName(raw: Uint8Array, index: number): string {
  try {
    return utf8.decode(raw);
  } catch {
    throw rejectEntry(`#${index + 1}`, 'the name is not valid UTF-8');
  }
}

/**
 * What the external attributes make of an entry. A nonzero high half is a Unix mode, read
 * whatever the "version made by" system says: S_IFLNK is a link; a FIFO, a device, a
 * socket or an unknown kind is "other"; S_IFDIR or the DOS folder bit (0x10) is a folder;
 * only S_IFREG or no kind at all is a file. A name ending in `/` is a folder entry unless
 * its mode makes it a link or "other". (The caller refuses links, "other", and folders
 * whose name does not end in `/`.)
 */
function typeOf(external: number, name: string): Pick<ZipEntry, 'type' | 'unixMode'> {
  const unixMode = external >>> 16;
  const kind = unixMode & S_IFMT;
  const mode = unixMode === 0 ? {} : { unixMode };
  if (kind === S_IFLNK) return { type: 'symlink', ...mode };
  if (kind !== 0 && kind !== S_IFREG && kind !== S_IFDIR) return { type: 'other', ...mode };
  const directory = kind === S_IFDIR || (external & DOS_DIRECTORY) !== 0 || name.endsWith('/');
  return { type: directory ? 'directory' : 'file', ...mode };
}

/**
 * Walk an extra field's blocks (id, size, data): a ZIP64 block (id 0x0001) is refused, and
 * so is a block that runs past the field (it could hide one from this reader but not another).
 */
function refuseZip64Extra(r: Reader, from: number, length: number, name: string, where: string): void {
  const end = from + length;
  for (let at = from; at < end; at += 4 + r.u16(at + 2)) {
    if (at + 4 > end || at + 4 + r.u16(at + 2) > end) throw rejectEntry(name, `the ${where}'s extra field is malformed (a block runs past its end; inconsistent archive)`);
    if (r.u16(at) === EXTRA_ZIP64) throw rejectEntry(name, `the ${where} carries a ZIP64 extra field (header id 0x0001), which a bundle never needs`);
  }
}

/**
 * Every entry of the archive, in central-directory order. Throws KW_ERR_BUNDLE_INVALID for
 * more than `maxEntries` entries, a truncated or inconsistent archive (sizes or offsets
 * that do not add up, a local header that disagrees with the directory, entries that
 * overlap, a malformed extra field), ZIP64 (records, sizes or an extra field, central or
 * local), several disks (in the end record or an entry's disk number), encryption, or a
 * compression method other than stored and deflate.
 */
export function readDirectory(bytes: Uint8Array, maxEntries: number): ZipEntry[] {
  const r = new Reader(bytes);
  const end = findEnd(r);
  if (end >= 20 && r.u32(end - 20) === SIG_ZIP64_LOCATOR) throw rejectBundle('it is a ZIP64 archive, which a bundle never needs');
  const [disk, cdDisk, onDisk, count, cdSize, cdOffset] = [r.u16(end + 4), r.u16(end + 6), r.u16(end + 8), r.u16(end + 10), r.u32(end + 12), r.u32(end + 16)];
  if (count === 0xffff || cdSize === 0xffffffff || cdOffset === 0xffffffff) throw rejectBundle('it is a ZIP64 archive, which a bundle never needs');
  if (disk !== 0 || cdDisk !== 0 || onDisk !== count) throw rejectBundle('it spans several disks');
  if (count > maxEntries) throw rejectBundle(`it holds ${count} entries; a bundle may hold at most ${maxEntries}`);
  if (cdOffset + cdSize !== end) {
    throw rejectBundle(`it is truncated or inconsistent (the central directory should span bytes ${cdOffset}–${cdOffset + cdSize}, but the end record is at ${end})`);
  }

  const entries: (ZipEntry & { headerAt: number; dataEnd: number })[] = [];
  let at = cdOffset;
  for (let i = 0; i < count; i++) {
    if (at + CENTRAL_SIZE > end || r.u32(at) !== SIG_CENTRAL) throw rejectBundle(`its central directory is broken at entry #${i + 1}`);
    const flags = r.u16(at + 8);
    const method = r.u16(at + 10);
    const crc = r.u32(at + 16);
    const compressedSize = r.u32(at + 20);
    const size = r.u32(at + 24);
    const [nameLen, extraLen, commentLen] = [r.u16(at + 28), r.u16(at + 30), r.u16(at + 32)];
    const diskStart = r.u16(at + 34);
    const external = r.u32(at + 38);
    const headerAt = r.u32(at + 42);
    const extraAt = at + CENTRAL_SIZE + nameLen;
    const next = extraAt + extraLen + commentLen;
    if (next > end) throw rejectBundle(`its central directory is broken at entry #${i + 1} (it runs past its end)`);
    const rawName = bytes.subarray(at + CENTRAL_SIZE, at + CENTRAL_SIZE + nameLen);
    const name = decodeName(rawName, i);
    at = next;

    if ((flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION | FLAG_MASKED_HEADER)) !== 0) throw rejectEntry(name, 'the entry is encrypted');
    if (method !== 0 && method !== 8) throw rejectEntry(name, `compression method ${method} is not supported (only stored and deflate)`);
    if (compressedSize === 0xffffffff || size === 0xffffffff || headerAt === 0xffffffff) throw rejectEntry(name, 'the entry uses ZIP64 sizes, which a bundle never needs');
    if (diskStart !== 0) throw rejectEntry(name, `the entry starts on disk ${diskStart}; a bundle is one file, never several disks`);
    refuseZip64Extra(r, extraAt, extraLen, name, 'central directory entry');
    if (method === 0 && compressedSize !== size) throw rejectEntry(name, `the entry is stored but declares ${compressedSize} stored and ${size} real bytes`);

    // The local header must agree with the directory: same name, method, flags, and (unless
    // a data descriptor follows the data) the same CRC and sizes.
    if (headerAt + LOCAL_SIZE > cdOffset || r.u32(headerAt) !== SIG_LOCAL) throw rejectEntry(name, `no local header at offset ${headerAt} (truncated or inconsistent archive)`);
    const localFlags = r.u16(headerAt + 6);
    const [localNameLen, localExtraLen] = [r.u16(headerAt + 26), r.u16(headerAt + 28)];
    const localName = bytes.subarray(headerAt + LOCAL_SIZE, headerAt + LOCAL_SIZE + localNameLen);
    if (headerAt + LOCAL_SIZE + localNameLen > cdOffset || Buffer.compare(localName, rawName) !== 0) {
      throw rejectEntry(name, 'the local header names another file than the central directory (inconsistent archive)');
    }
    if (r.u16(headerAt + 8) !== method || (localFlags & ~FLAG_DESCRIPTOR) !== (flags & ~FLAG_DESCRIPTOR)) {
      throw rejectEntry(name, 'the local header disagrees with the central directory about method or flags (inconsistent archive)');
    }
    if ((localFlags & FLAG_DESCRIPTOR) === 0) {
      const [lCrc, lComp, lSize] = [r.u32(headerAt + 14), r.u32(headerAt + 18), r.u32(headerAt + 22)];
      if (lCrc !== crc || lComp !== compressedSize || lSize !== size) {
        throw rejectEntry(name, `the local header declares ${formatBytes(lSize)} (CRC ${lCrc.toString(16)}), the central directory ${formatBytes(size)} (CRC ${crc.toString(16)}) (inconsistent archive)`);
      }
    }
    if (headerAt + LOCAL_SIZE + localNameLen + localExtraLen > cdOffset) throw rejectEntry(name, 'the local header runs into the central directory (truncated or inconsistent archive)');
    refuseZip64Extra(r, headerAt + LOCAL_SIZE + localNameLen, localExtraLen, name, 'local header');
    const dataStart = headerAt + LOCAL_SIZE + localNameLen + localExtraLen;
    const dataEnd = dataStart + compressedSize;
    if (dataEnd > cdOffset) throw rejectEntry(name, 'the entry\'s data runs into the central directory (truncated or inconsistent archive)');
    entries.push({ name, method, crc, compressedSize, size, dataStart, headerAt, dataEnd, ...typeOf(external, name) });
  }
  if (at !== end) throw rejectBundle(`its central directory holds more than the ${count} entries its end record counts (inconsistent archive)`);

  // No two entries may share bytes (overlapping entries are a known way to make a small bomb).
  const byOffset = [...entries].sort((a, b) => a.headerAt - b.headerAt);
  for (let i = 1; i < byOffset.length; i++) {
    const prev = byOffset[i - 1]!;
    const cur = byOffset[i]!;
    if (cur.headerAt < prev.dataEnd) throw rejectEntry(cur.name, `the entry overlaps ${JSON.stringify(prev.name)} (inconsistent archive)`);
  }
  return entries.map(({ headerAt: _h, dataEnd: _d, ...entry }) => entry);
}
