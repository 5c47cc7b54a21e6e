/**
 * The archive being written: fflate's streaming `Zip`, each entry deflated in chunks
 * straight into a file descriptor, its SHA-256 computed on the same bytes. Plain ZIP
 * (no ZIP64): an archive past 4 GiB is refused rather than written broken.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import { Zip, ZipDeflate } from 'fflate';
import { KowalskiError } from '../../core/index.js';
import type { BackupFile } from './manifest.js';

/** Largest archive plain ZIP can describe (offsets are 32-bit). */
const ZIP_LIMIT = 0xffff_ffff;
const CHUNK = 1024 * 1024;

export class ZipOut {
  readonly #fd: number;
  readonly #zip: Zip;
  #written = 0;
  #error: Error | undefined;

  constructor(readonly file: string) {
    this.#fd = fs.openSync(file, 'wx', 0o600);
    this.#zip = new Zip((err, chunk) => {
      if (err !== null) {
        this.#error ??= err;
        return;
      }
      this.#written += chunk.length;
      if (this.#written > ZIP_LIMIT) {
        this.#error ??= new KowalskiError('KW_ERR_BACKUP_TARGET', `the backup would be larger than 4 GiB, more than a plain ZIP archive holds; ${file} was not written`, { where: { file } });
        return;
      }
      fs.writeSync(this.#fd, chunk);
    });
  }

  /** Add the bytes of the file `abs` (read as they are now) as `name`; undefined if it is gone. */
  addFile(name: string, abs: string): BackupFile | undefined {
    let fd: number;
    try {
      fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw err;
    }
    try {
      const entry = this.#open(name);
      const hash = crypto.createHash('sha256');
      const buf = Buffer.allocUnsafe(CHUNK);
      let size = 0;
      for (let n = fs.readSync(fd, buf); n > 0; n = fs.readSync(fd, buf)) {
        const chunk = Buffer.from(buf.subarray(0, n));
        hash.update(chunk);
        size += n;
        entry.push(chunk, false);
        this.#check();
      }
      entry.push(new Uint8Array(0), true);
      this.#check();
      return { path: name, size, sha256: hash.digest('hex') };
    } finally {
      fs.closeSync(fd);
    }
  }

  addBytes(name: string, data: Uint8Array): BackupFile {
    this.#open(name).push(data, true);
    this.#check();
    return { path: name, size: data.length, sha256: crypto.createHash('sha256').update(data).digest('hex') };
  }

  /** Write the central directory, flush it to the disk and close. */
  finish(): void {
    this.#zip.end();
    this.#check();
    fs.fsyncSync(this.#fd);
    fs.closeSync(this.#fd);
  }

  /** Give up: close (the caller removes the file). */
  abandon(): void {
    try {
      fs.closeSync(this.#fd);
    } catch {
      // closed already
    }
  }

  #open(name: string): ZipDeflate {
    const entry = new ZipDeflate(name, { level: 6 });
    this.#zip.add(entry);
    return entry;
  }

  #check(): void {
    if (this.#error !== undefined) throw this.#error;
  }
}
