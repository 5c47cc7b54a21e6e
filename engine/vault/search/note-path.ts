/**
 * Which files of the vault are notes, as the index sees them: a `.md` file below the
 * vault, reached through no symlink and no dot-folder. A path given from outside is
 * checked by the vault's one rule (../vault-paths.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { vaultSegments } from '../vault-paths.js';

/** Bytes of a note the index reads; the rest of a larger file is not searched. */
export const MAX_NOTE_BYTES = 1024 * 1024;

/** Whether a relative path names a note by its name alone: ends in `.md`, no segment starts with a dot. */
export function isNoteName(rel: string): boolean {
  return rel.toLowerCase().endsWith('.md') && rel.split('/').every((s) => s !== '' && !s.startsWith('.'));
}

/** A folder filter (`memory/`, `memory`) as a prefix of note paths (`memory/`); the vault itself is ''. Checked by the vault's one path rule (KW_ERR_VAULT_PATH). */
export function folderPrefix(under: string): string {
  const segments = vaultSegments(under);
  return segments.length === 0 ? '' : `${segments.join('/')}/`;
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
