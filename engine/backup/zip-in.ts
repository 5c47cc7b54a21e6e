/**
 * Reading a backup archive without loading it whole: the end record and the central
 * directory by positioned reads, then one entry at a time inflated in chunks into a file
 * (or memory), its CRC-32 and SHA-256 computed on the bytes produced and its size bounded
 * by what its header declares. Plain ZIP only (what `zip-out.ts` writes): any damage is
 * KW_ERR_BACKUP_INVALID naming the entry.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { crc32 } from 'node:zlib';
import { Inflate } from 'fflate';
import { invalidBackup } from './manifest.js';
import { messageOf } from '../../core/index.js';

export interface ArchiveEntry {
  name: string;
  method: 0 | 8;
  crc: number;
  compressedSize: number;
  size: number;
  localOffset: number;
}

const SIG_EOCD = 0x06054b50;
const SIG_CENTRAL = 0x02014b50;
const SIG_LOCAL = 0x04034b50;
const EOCD_SIZE = 22;
const MAX_COMMENT = 0xffff;
const CHUNK = 256 * 1024;
const utf8 = new TextDecoder('utf-8', { fatal: true });

function readAt(fd: number, at: number, length: number): Buffer {
  const buf = Buffer.alloc(length);
  let got = 0;
  while (got < length) {
    const n = fs.readSync(fd, buf, got, length - got, at + got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

export class ZipIn {
  readonly entries: ArchiveEntry[];
  readonly #fd: number;
  readonly #cdOffset: number;

  constructor(readonly file: string) {
    this.#fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(this.#fd).size;
      const tailLength = Math.min(size, EOCD_SIZE + MAX_COMMENT);
      const tail = readAt(this.#fd, size - tailLength, tailLength);
      let end = -1;
      for (let i = tail.length - EOCD_SIZE; i >= 0; i--) {
        if (tail.readUInt32LE(i) === SIG_EOCD) {
          end = i;
          break;
        }
      }
      if (end < 0) throw invalidBackup(file, 'it is not a ZIP archive (no end record; truncated?)');
      const count = tail.readUInt16LE(end + 10);
      const cdSize = tail.readUInt32LE(end + 12);
      this.#cdOffset = tail.readUInt32LE(end + 16);
      const endAbs = size - tailLength + end;
      if (this.#cdOffset + cdSize > endAbs) throw invalidBackup(file, 'its central directory runs past its end record (truncated or damaged)');
      this.entries = this.#directory(readAt(this.#fd, this.#cdOffset, cdSize), count);
    } catch (err) {
      fs.closeSync(this.#fd);
      throw err;
    }
  }

  #directory(cd: Buffer, count: number): ArchiveEntry[] {
    const entries: ArchiveEntry[] = [];
    let at = 0;
    for (let i = 0; i < count; i++) {
      if (at + 46 > cd.length || cd.readUInt32LE(at) !== SIG_CENTRAL) throw invalidBackup(this.file, `its central directory is broken at entry #${i + 1}`);
      const method = cd.readUInt16LE(at + 10);
      const nameLength = cd.readUInt16LE(at + 28);
      const next = at + 46 + nameLength + cd.readUInt16LE(at + 30) + cd.readUInt16LE(at + 32);
      if (next > cd.length) throw invalidBackup(this.file, `its central directory is broken at entry #${i + 1}`);
      let name: string;
      try {
        name = utf8.decode(cd.subarray(at + 46, at + 46 + nameLength));
      } catch {
        throw invalidBackup(this.file, `entry #${i + 1}'s name is not UTF-8`);
      }
      if (method !== 0 && method !== 8) throw invalidBackup(this.file, `entry ${JSON.stringify(name)} uses compression method ${method}`);
      entries.push({ name, method, crc: cd.readUInt32LE(at + 16), compressedSize: cd.readUInt32LE(at + 20), size: cd.readUInt32LE(at + 24), localOffset: cd.readUInt32LE(at + 42) });
      at = next;
    }
    return entries;
  }

  /** Inflate `entry`, handing each chunk to `sink`; checks size and CRC-32, returns the SHA-256. */
  extract(entry: ArchiveEntry, sink: (chunk: Uint8Array) => void): string {
    const bad = (why: string): Error => invalidBackup(this.file, `entry ${JSON.stringify(entry.name)} ${why}`);
    const local = readAt(this.#fd, entry.localOffset, 30);
    if (local.length < 30 || local.readUInt32LE(0) !== SIG_LOCAL) throw bad('has no local header where the directory says (damaged)');
    const dataStart = entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
    if (dataStart + entry.compressedSize > this.#cdOffset) throw bad('runs into the central directory (damaged)');
    const hash = crypto.createHash('sha256');
    let count = 0;
    let crc = 0;
    let overflow = false;
    const take = (chunk: Uint8Array): void => {
      count += chunk.length;
      if (count > entry.size) {
        overflow = true;
        throw bad(`inflates past the ${entry.size} bytes its header declares`);
      }
      crc = crc32(chunk, crc);
      hash.update(chunk);
      sink(chunk);
    };
    const inflater = entry.method === 8 ? new Inflate((chunk) => void (chunk.length > 0 && take(chunk))) : undefined;
    try {
      let done = 0;
      do {
        const piece = readAt(this.#fd, dataStart + done, Math.min(CHUNK, entry.compressedSize - done));
        if (piece.length === 0 && done < entry.compressedSize) throw bad('is truncated');
        done += piece.length;
        if (inflater === undefined) take(piece);
        else inflater.push(piece, done >= entry.compressedSize);
      } while (done < entry.compressedSize);
    } catch (err) {
      if (overflow || (err as { code?: string }).code === 'KW_ERR_BACKUP_INVALID') throw err;
      throw bad(`has broken compressed data (${messageOf(err)})`);
    }
    if (count !== entry.size) throw bad(`inflates to ${count} bytes, but its header declares ${entry.size} (damaged)`);
    if (crc >>> 0 !== entry.crc) throw bad('fails its CRC-32 (the archive is damaged)');
    return hash.digest('hex');
  }

  close(): void {
    fs.closeSync(this.#fd);
  }
}
