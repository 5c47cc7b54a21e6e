/**
 * Which files of the vault are notes, and the path checks every index entry point
 * shares: a note is a `.md` file below the vault, reached through no symlink and no
 * dot-folder; a path given from outside is relative, `/`-separated and never climbs out.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KowalskiError } from '../../../core/index.js';

/** Bytes of a note the index reads; the rest of a larger file is not searched. */
export const MAX_NOTE_BYTES = 1024 * 1024;

/** Whether a relative path names a note by its name alone: ends in `.md`, no segment starts with a dot. */
export function isNoteName(rel: string): boolean {
  return rel.toLowerCase().endsWith('.md') && rel.split('/').every((s) => s !== '' && !s.startsWith('.'));
}

/**
 * A vault-relative path as the index keys it (`projects/acme.md`). Refuses (KW_ERR_VAULT_PATH)
 * an absolute path, a `..` segment, a backslash or a NUL.
 */
export function normalizeNotePath(rel: string, what = 'the note path'): string {
  if (rel === '' || rel.includes('\0') || rel.includes('\\') || path.posix.isAbsolute(rel) || /^[A-Za-z]:/.test(rel)) {
    throw new KowalskiError('KW_ERR_VAULT_PATH', `${what} ${JSON.stringify(rel)} must be a relative path inside the vault, with / between folders`);
  }
  const segments = rel.split('/').filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw new KowalskiError('KW_ERR_VAULT_PATH', `${what} ${JSON.stringify(rel)} climbs out of the vault with ..`);
  return segments.join('/');
}

/** A folder filter (`memory/`, `memory`) as a prefix of note paths (`memory/`); the vault itself is ''. */
export function folderPrefix(under: string): string {
  const trimmed = under.replace(/\/+$/, '');
  if (trimmed === '' || trimmed === '.') return '';
  return `${normalizeNotePath(trimmed, 'the folder')}/`;
}

/**
 * The file behind a note path if it is one to index now: every folder on the way a real
 * folder (not a symlink), the file a regular file (not a symlink). Undefined when it is
 * missing or not a note (so its entry, if any, goes).
 */
export function noteFile(root: string, rel: string): { abs: string; stat: fs.Stats } | undefined {
  if (!isNoteName(rel)) return undefined;
  const segments = rel.split('/');
  let abs = root;
  for (const [i, segment] of segments.entries()) {
    abs = path.join(abs, segment);
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(abs);
    } catch {
      return undefined;
    }
    const last = i === segments.length - 1;
    if (last ? !stat.isFile() : !stat.isDirectory()) return undefined;
    if (last) return { abs, stat };
  }
  return undefined;
}
