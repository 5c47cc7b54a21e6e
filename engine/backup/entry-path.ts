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
