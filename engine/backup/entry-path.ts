/**
 * Entry names of a backup archive: `/`-separated paths relative to the data folder. A name
 * that could land outside the target folder (zip-slip: `..`, an absolute path, a drive
 * letter, a backslash, a NUL) is refused before a byte is written.
 */
import path from 'node:path';

/** Why `name` is unsafe, or undefined when it is a plain relative path. */
export function unsafeEntryName(name: string): string | undefined {
  if (name === '') return 'the name is empty';
  if (name.includes('\0')) return 'the name holds a NUL';
  if (name.includes('\\')) return 'the name holds a backslash';
  if (name.startsWith('/') || /^[A-Za-z]:/.test(name)) return 'the name is an absolute path';
  const segments = name.split('/');
  if (segments.some((s) => s === '' || s === '.')) return 'the name has an empty or "." segment';
  if (segments.includes('..')) return 'the name climbs out with a ".." segment (zip-slip)';
  return undefined;
}

/** `name` under `root`, checked once more after resolving: never outside `root`. */
export function entryTarget(root: string, name: string): string | undefined {
  if (unsafeEntryName(name) !== undefined) return undefined;
  const abs = path.resolve(root, ...name.split('/'));
  const rel = path.relative(root, abs);
  return rel === '' || rel.startsWith('..') || path.isAbsolute(rel) ? undefined : abs;
}

/** The longest name of one file or folder most file systems hold, in bytes. */
export const SEGMENT_MAX_BYTES = 255;
/** The longest entry name taken, in bytes (below PATH_MAX, leaving room for the target's own path). */
export const NAME_MAX_BYTES = 1024;

/**
 * Why the files and folders of an archive cannot all be placed, or undefined: a name (or
 * one of its segments) too long, a file listed twice, a file where a folder is needed (a
 * file `a` beside `a/b`, or a folder `a` listed as a file too).
 */
export function layoutProblem(files: readonly string[], dirs: readonly string[]): string | undefined {
  for (const name of [...files, ...dirs]) {
    if (Buffer.byteLength(name) > NAME_MAX_BYTES) return `lists a name of ${Buffer.byteLength(name)} bytes (at most ${NAME_MAX_BYTES}): ${JSON.stringify(name.slice(0, 80))}…`;
    const long = name.split('/').find((s) => Buffer.byteLength(s) > SEGMENT_MAX_BYTES);
    if (long !== undefined) return `lists ${JSON.stringify(name.slice(0, 80))}…, one of whose names is ${Buffer.byteLength(long)} bytes (at most ${SEGMENT_MAX_BYTES})`;
  }
  const fileSet = new Set<string>();
  for (const f of files) {
    if (fileSet.has(f)) return `lists the file ${JSON.stringify(f)} twice`;
    fileSet.add(f);
  }
  for (const name of [...files, ...dirs]) {
    const segments = name.split('/');
    for (let i = 1; i < segments.length; i++) {
      const parent = segments.slice(0, i).join('/');
      if (fileSet.has(parent)) return `lists ${JSON.stringify(parent)} as a file and ${JSON.stringify(name)} inside it: a file stands where a folder is needed`;
    }
  }
  const asFolder = dirs.find((d) => fileSet.has(d));
  if (asFolder !== undefined) return `lists ${JSON.stringify(asFolder)} as a file and as a folder`;
  return undefined;
}
