/**
 * A raw zip writer for hostile-bundle tests: every header field is written here byte by
 * byte, so a test can make the archive fflate never would (a lying size, a symlink mode
 * from a DOS zip, a disk number, a ZIP64 extra field…).
 */
import { deflateRawSync, crc32 } from 'node:zlib';

export interface RawEntry {
  name: string;
  /** The real (uncompressed) bytes. */
  data?: Uint8Array;
  /** 0 stored, 8 deflate (default), or anything else to test refusals. */
  method?: number;
  /** Written as the compressed bytes instead of deflating `data`. */
  compressed?: Uint8Array;
  /** Declared CRC-32 (default: the true one). */
  crc?: number;
  /** Declared uncompressed size in both headers (default: the true one). */
  size?: number;
  /** The name in the local header (default: `name`). */
  localName?: string;
  /** General purpose flags (UTF-8 names are always flagged). */
  flags?: number;
  /** "Version made by" host: 3 = Unix (default), 0 = MS-DOS, 10 = NTFS, 11 = VFAT, 19 = OS X. */
  hostOs?: number;
  /** External attributes (default: a Unix regular file, 0644). */
  attrs?: number;
  /** The central directory's "disk number start" (default 0). */
  diskStart?: number;
  /** The local header's extra field (default: none). */
  localExtra?: Uint8Array;
  /** The central directory entry's extra field (default: none). */
  centralExtra?: Uint8Array;
}

export interface Written {
  local: Buffer;
  central: (offset: number) => Buffer;
}

/** A Unix mode as external attributes: `attrsOf(0o120777)`. */
export function attrsOf(mode: number, dos = 0): number {
  return ((mode << 16) | dos) >>> 0;
}

/** One extra-field block: id, size, data. */
export function extraBlock(id: number, data: Uint8Array): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16LE(id, 0);
  head.writeUInt16LE(data.length, 2);
  return Buffer.concat([head, data]);
}

export function writeEntry(e: RawEntry): Written {
  const name = Buffer.from(e.name, 'utf8');
  const localName = Buffer.from(e.localName ?? e.name, 'utf8');
  const data = Buffer.from(e.data ?? new Uint8Array(0));
  const method = e.method ?? 8;
  const compressed = Buffer.from(e.compressed ?? (method === 8 ? deflateRawSync(data) : data));
  const crc = e.crc ?? crc32(data);
  const size = e.size ?? data.length;
  const flags = (e.flags ?? 0) | 0x0800;
  const localExtra = Buffer.from(e.localExtra ?? new Uint8Array(0));
  const centralExtra = Buffer.from(e.centralExtra ?? new Uint8Array(0));
  const local = Buffer.alloc(30);
  local.writeUInt32LE(0x04034b50, 0);
  local.writeUInt16LE(20, 4);
  local.writeUInt16LE(flags, 6);
  local.writeUInt16LE(method, 8);
  local.writeUInt16LE(0, 10);
  local.writeUInt16LE(0x0021, 12);
  local.writeUInt32LE(crc >>> 0, 14);
  local.writeUInt32LE(compressed.length, 18);
  local.writeUInt32LE(size, 22);
  local.writeUInt16LE(localName.length, 26);
  local.writeUInt16LE(localExtra.length, 28);
  return {
    local: Buffer.concat([local, localName, localExtra, compressed]),
    central(offset) {
      const c = Buffer.alloc(46);
      c.writeUInt32LE(0x02014b50, 0);
      c.writeUInt16LE(((e.hostOs ?? 3) << 8) | 20, 4);
      c.writeUInt16LE(20, 6);
      c.writeUInt16LE(flags, 8);
      c.writeUInt16LE(method, 10);
      c.writeUInt16LE(0, 12);
      c.writeUInt16LE(0x0021, 14);
      c.writeUInt32LE(crc >>> 0, 16);
      c.writeUInt32LE(compressed.length, 20);
      c.writeUInt32LE(size, 24);
      c.writeUInt16LE(name.length, 28);
      c.writeUInt16LE(centralExtra.length, 30);
      c.writeUInt16LE(e.diskStart ?? 0, 34);
      c.writeUInt32LE((e.attrs ?? attrsOf(0o100644)) >>> 0, 38);
      c.writeUInt32LE(offset, 42);
      return Buffer.concat([c, name, centralExtra]);
    },
  };
}

export function endRecord(count: number, cdSize: number, cdOffset: number): Buffer {
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(count & 0xffff, 8);
  end.writeUInt16LE(count & 0xffff, 10);
  end.writeUInt32LE(cdSize, 12);
  end.writeUInt32LE(cdOffset, 16);
  return end;
}

/** A zip of `entries`; `count` overrides the entry count of the end record. */
export function rawZip(entries: RawEntry[], options: { count?: number } = {}): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const e of entries) {
    const w = writeEntry(e);
    centrals.push(w.central(offset));
    locals.push(w.local);
    offset += w.local.length;
  }
  const cd = Buffer.concat(centrals);
  return Buffer.concat([...locals, cd, endRecord(options.count ?? entries.length, cd.length, offset)]);
}
