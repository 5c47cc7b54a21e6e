/**
 * The vault's one rule for paths: a note is named by a relative, `/`-separated path that
 * stays inside the vault. Checked lexically (no absolute path, no `..`, no hidden or
 * over-long segment, `.md` for a note), then on disk segment by segment: each part that
 * exists is lstat'ed and a symlink anywhere on the way is refused, so nothing is ever
 * read or written through a link (the vault never follows one, even to inside itself).
 * A local process racing a write can still swap a folder for a link between this check
 * and the open; closing that gap needs openat2(RESOLVE_BENEATH), which Node lacks.
 */
import fs from 'node:fs';
import type { Stats } from 'node:fs';
import path from 'node:path';
import { KowalskiError } from '../../core/index.js';

/** Longest path the vault takes, in characters. */
export const MAX_VAULT_PATH = 512;
/** Longest segment (a folder or file name), in bytes: what most file systems allow. */
const MAX_SEGMENT_BYTES = 255;

export interface VaultPath {
  /** Normalised relative path (`projects/acme.md`): the note's name in the audit and the index. */
  rel: string;
  abs: string;
  /** lstat of the note (never a link), or null when it does not exist. */
  stat: Stats | null;
}

/** Characters that reorder how text is shown: a name holding one can read as another. */
const BIDI_CONTROLS = /[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]/;

function refused(input: string, why: string): KowalskiError {
  return new KowalskiError('KW_ERR_VAULT_PATH', `${JSON.stringify(input.length > 200 ? `${input.slice(0, 200)}…` : input)}: ${why}`);
}

/** The segments of a relative vault path; refuses what can never name something inside the vault. */
export function vaultSegments(input: string): string[] {
  if (input.length > MAX_VAULT_PATH) throw refused(input, `a vault path is at most ${MAX_VAULT_PATH} characters`);
  if (/[\0-\x1f\x7f-\x9f\u2028\u2029]/.test(input)) throw refused(input, 'a vault path may not contain control characters (C0, DEL, C1 such as U+0085, or a line separator)');
  if (BIDI_CONTROLS.test(input)) throw refused(input, 'a vault path may not contain bidirectional controls (U+202A–U+202E, U+2066–U+2069, U+200E, U+200F, U+061C): they make a name read other than it is');
  if (input.includes('\\')) throw refused(input, 'separate folders with "/", not "\\"');
  if (input.startsWith('/') || /^[A-Za-z]:/.test(input)) throw refused(input, 'absolute paths are refused; write the path relative to the vault, e.g. "projects/acme.md"');
  const segments = input.split('/').filter((s) => s !== '' && s !== '.');
  if (segments[0] === '~') throw refused(input, '"~" is not the home folder here: paths are relative to the vault');
  if (segments.includes('..')) throw refused(input, '".." is refused: paths stay inside the vault; write the path from its top, e.g. "projects/acme.md"');
  for (const s of segments) {
    if (s.startsWith('.')) throw refused(input, `${JSON.stringify(s)} is hidden (starts with "."); the vault holds only visible notes and folders`);
    if (Buffer.byteLength(s) > MAX_SEGMENT_BYTES) throw refused(input, `a file or folder name is at most ${MAX_SEGMENT_BYTES} bytes`);
  }
  return segments;
}

/** A note's path: at least a file name, ending in `.md`. */
export function noteSegments(input: string): string[] {
  const segments = vaultSegments(input);
  const name = segments.at(-1);
  if (name === undefined) throw refused(input, 'name a note, e.g. "inbox.md"');
  if (!name.endsWith('.md') || name === '.md') throw refused(input, 'the vault holds Markdown notes only: the name must end in ".md"');
  return segments;
}

const missing = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * Walk `segments` below `root`, lstat'ing each part that exists: a symlink is refused, a
 * file where a folder should be is KW_ERR_VAULT_NOT_FOUND. Returns the last part's lstat,
 * or null from the first part that does not exist.
 */
function walk(root: string, segments: readonly string[], input: string): Stats | null {
  let cur = root;
  let st: Stats | null = null;
  for (let i = 0; i < segments.length; i++) {
    if (st !== null && !st.isDirectory()) {
      throw new KowalskiError('KW_ERR_VAULT_NOT_FOUND', `${JSON.stringify(input)}: ${JSON.stringify(segments.slice(0, i).join('/'))} is a file, not a folder`);
    }
    cur = path.join(cur, segments[i]!);
    try {
      st = fs.lstatSync(cur);
    } catch (err) {
      if (missing(err)) return null;
      throw err;
    }
    if (st.isSymbolicLink()) throw refused(input, `${JSON.stringify(segments.slice(0, i + 1).join('/'))} is a symlink, and the vault never follows one`);
  }
  return st;
}

/** A note's path checked against the vault on disk; the note itself may not exist yet. */
export function resolveNote(root: string, input: string): VaultPath {
  const segments = noteSegments(input);
  const stat = walk(root, segments, input);
  const rel = segments.join('/');
  if (stat !== null && !stat.isFile()) throw refused(input, `${JSON.stringify(rel)} is ${stat.isDirectory() ? 'a folder' : 'not a regular file'}, not a note`);
  return { rel, abs: path.join(root, ...segments), stat };
}

/** A folder of the vault (`""` is the vault itself); null when it does not exist. */
export function resolveFolder(root: string, input: string): { rel: string; abs: string } | null {
  const segments = vaultSegments(input);
  const stat = segments.length === 0 ? fs.statSync(root) : walk(root, segments, input);
  if (stat === null) return null;
  if (!stat.isDirectory()) throw refused(input, 'this is a file, not a folder');
  return { rel: segments.join('/'), abs: path.join(root, ...segments) };
}
