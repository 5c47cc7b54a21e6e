/**
 * Paths that must stay inside a root folder (the workdir, the project folder): checked
 * lexically (no absolute paths, no `..`) and on disk (the realpath of the nearest
 * existing ancestor, so a symlink cannot lead out). Plus atomic file writes.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { KowalskiError } from '../core/index.js';
import type { ErrorCode, PlainError } from '../core/index.js';

/** True when `child` is `root` or below it (both absolute and normalised). */
export function isWithin(root: string, child: string): boolean {
  const rel = path.relative(root, child);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The lexical check: a relative path with no `..` segment. Returns the normalised relative path. */
export function checkRelative(rel: string, code: ErrorCode, what: string, where?: PlainError['where']): string {
  const options = where === undefined ? {} : { where };
  if (rel === '' || path.isAbsolute(rel) || /^[A-Za-z]:[\\/]/.test(rel) || rel.startsWith('~')) {
    throw new KowalskiError(code, `${what} \`${rel}\` must be a relative path inside its folder`, options);
  }
  if (rel.split(/[\\/]+/).includes('..')) {
    throw new KowalskiError(code, `${what} \`${rel}\` climbs out of its folder with ..`, options);
  }
  return path.normalize(rel);
}

/** realpath of `abs` if it exists, else of its nearest existing ancestor joined with the rest. */
export function realpathOfNearest(abs: string): string {
  let current = abs;
  const rest: string[] = [];
  for (;;) {
    try {
      return path.join(fs.realpathSync(current), ...rest.reverse());
    } catch {
      const parent = path.dirname(current);
      if (parent === current) return abs;
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

/**
 * `root/rel` as an absolute path, refused (with `code`) when `rel` is absolute, has
 * `..`, or resolves through a symlink to somewhere outside `root`. With `forWrite`, only
 * the folder is checked: the file itself is replaced by a rename, never written through.
 */
export function resolveInside(
  root: string, rel: string, code: ErrorCode, what: string, where?: PlainError['where'], forWrite = false,
): string {
  const clean = checkRelative(rel, code, what, where);
  const abs = path.join(root, clean);
  const realRoot = realpathOfNearest(root);
  const real = forWrite ? path.join(realpathOfNearest(path.dirname(abs)), path.basename(abs)) : realpathOfNearest(abs);
  if (!isWithin(realRoot, real)) {
    throw new KowalskiError(code, `${what} \`${rel}\` leads outside ${root} (to ${real})`, where === undefined ? {} : { where });
  }
  return abs;
}

export interface AtomicWriteOptions {
  /** The file's mode from its first byte (e.g. 0o600 for a secret). */
  mode?: number;
  /** Flush the bytes to disk before the rename (settings and secrets, not every artifact). */
  fsync?: boolean;
}

/**
 * Write a file by writing a temp file next to it and renaming it into place: a reader
 * never sees half a file, and a symlink at the target is replaced, never followed.
 */
export function writeFileAtomic(abs: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): void {
  const { mode, fsync = false } = options;
  fs.mkdirSync(path.dirname(abs), { recursive: true });
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.kw-${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fd = fs.openSync(tmp, 'wx', mode);
    try {
      fs.writeFileSync(fd, data);
      if (mode !== undefined) fs.fchmodSync(fd, mode);
      if (fsync) fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
    fs.renameSync(tmp, abs);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
}
