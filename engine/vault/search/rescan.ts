/**
 * Bringing the keyword index level with the folder: one note (`refreshNote`, after a
 * write or a watcher event) or the whole vault (`rescanVault`, at start, for what changed
 * while kowalski was stopped). A note whose size and mtime are as indexed is not read; one
 * whose bytes hash as indexed is only re-stamped. The walk takes `.md` files, follows no
 * symlink and enters no dot-folder.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { titleOf } from './chunks.js';
import type { KeywordIndex, NoteStamp } from './keyword-index.js';
import { MAX_NOTE_BYTES, isNoteName, noteFile } from './note-path.js';

/** A file larger than this is not a note the index reads at all. */
export const MAX_NOTE_FILE_BYTES = 16 * 1024 * 1024;
/** Folders deeper than this below the vault are not walked. */
const MAX_DEPTH = 32;
/** Notes a rescan takes at most; past it the walk stops and says so. */
export const MAX_NOTES = 200_000;

export type Refresh = 'indexed' | 'unchanged' | 'removed' | 'absent';

/** Told the path of each note the index took in, changed or dropped (the vectors follow). */
export type OnIndexChange = (path: string) => void;

export interface RescanResult {
  indexed: number;
  removed: number;
  /** Notes seen on disk. */
  notes: number;
  /** True when the walk stopped at MAX_NOTES. */
  truncated: boolean;
}

function stampOf(stat: fs.Stats): Pick<NoteStamp, 'sizeBytes' | 'mtimeMs'> {
  return { sizeBytes: stat.size, mtimeMs: Math.floor(stat.mtimeMs) };
}

/**
 * Index `rel` again if it changed (or drop it if it is gone or no longer a note).
 * `known` is the indexed stamp (looked up when not given).
 */
export function refreshNote(
  index: KeywordIndex, root: string, rel: string, at: number, onChange: OnIndexChange, known?: NoteStamp | null,
): Refresh {
  const file = noteFile(root, rel);
  const before = known === undefined ? index.stamp(rel) ?? null : known;
  if (file === undefined || file.stat.size > MAX_NOTE_FILE_BYTES) {
    if (!index.remove(rel)) return 'absent';
    onChange(rel);
    return 'removed';
  }
  const stamp = stampOf(file.stat);
  if (before !== null && before.sizeBytes === stamp.sizeBytes && before.mtimeMs === stamp.mtimeMs) return 'unchanged';
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file.abs);
  } catch {
    // Gone between the stat and the read: the next event or rescan sees it.
    return 'unchanged';
  }
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  if (before !== null && before.sha256 === sha256) {
    index.touch(rel, stamp);
    return 'unchanged';
  }
  const body = bytes.subarray(0, MAX_NOTE_BYTES).toString('utf8');
  index.put({ path: rel, title: titleOf(body, rel), body, sha256, ...stamp }, at);
  onChange(rel);
  return 'indexed';
}

/** Every note below `root`, relative and `/`-separated, at most `max`. */
export function walkNotes(root: string, max = MAX_NOTES): { paths: string[]; truncated: boolean } {
  const paths: string[] = [];
  const stack: Array<{ dir: string; rel: string; depth: number }> = [{ dir: root, rel: '', depth: 0 }];
  while (stack.length > 0) {
    const { dir, rel, depth } = stack.pop()!;
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue; // gone, or not a folder we may read
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.isSymbolicLink()) continue;
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (depth + 1 < MAX_DEPTH) stack.push({ dir: path.join(dir, entry.name), rel: childRel, depth: depth + 1 });
      } else if (entry.isFile() && isNoteName(childRel)) {
        if (paths.length >= max) return { paths, truncated: true };
        paths.push(childRel);
      }
    }
  }
  return { paths, truncated: false };
}

/** Bring the whole index level with the folder, in one transaction. */
export function rescanVault(index: KeywordIndex, root: string, at: number, onChange: OnIndexChange): RescanResult {
  const { paths, truncated } = walkNotes(root);
  return index.batch(() => {
    const known = index.stamps();
    let indexed = 0;
    let removed = 0;
    for (const rel of paths) {
      if (refreshNote(index, root, rel, at, onChange, known.get(rel) ?? null) === 'indexed') indexed++;
      known.delete(rel);
    }
    // What is left was indexed and is no longer on disk (a truncated walk removes nothing it did not see).
    if (!truncated) {
      for (const rel of known.keys()) {
        if (index.remove(rel)) {
          removed++;
          onChange(rel);
        }
      }
    }
    return { indexed, removed, notes: paths.length, truncated };
  });
}

/** A note's sha256 and text (its first MAX_NOTE_BYTES) as it is now; undefined when it is not a note to index. */
export function readNote(root: string, rel: string): { sha256: string; body: string } | undefined {
  const file = noteFile(root, rel);
  if (file === undefined || file.stat.size > MAX_NOTE_FILE_BYTES) return undefined;
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(file.abs);
  } catch {
    return undefined;
  }
  return { sha256: createHash('sha256').update(bytes).digest('hex'), body: bytes.subarray(0, MAX_NOTE_BYTES).toString('utf8') };
}
