/**
 * Reading the vault: the notes under a folder and one note with its text. A note is
 * shown as NoteInfo: its title is the first `# ` heading (else the file name), its
 * preview the first characters as they are — front matter, wikilinks and tags are plain
 * text here, never interpreted. Hidden entries and symlinks are skipped, as the paths
 * rule refuses them; everything read is bounded.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KowalskiError } from '../../core/index.js';
import type { NoteInfo } from './types.js';
import { resolveFolder, resolveNote } from './vault-paths.js';
import { titleOf } from './search/chunks.js';

/** Characters of a note shown as its preview. */
export const PREVIEW_CHARS = 300;
/** Bytes read from the start of each note when listing (the title and preview are found there). */
const HEAD_BYTES = 16 * 1024;
/** Most notes one listing returns (the rest are left out, in path order). */
export const MAX_LISTED = 5000;
/** Deepest folder nesting a listing walks. */
const MAX_DEPTH = 32;

export function noteInfo(rel: string, text: string, size: number, mtimeMs: number): NoteInfo {
  return { path: rel, title: titleOf(text, rel), size_bytes: size, modified_at: Math.round(mtimeMs), preview: text.slice(0, PREVIEW_CHARS) };
}

/** The first `bytes` of a file (never through a link). */
function readStart(abs: string, bytes: number): Buffer {
  const fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    const buf = Buffer.alloc(bytes);
    return buf.subarray(0, fs.readSync(fd, buf, 0, bytes, 0));
  } finally {
    fs.closeSync(fd);
  }
}

/** The first `bytes` of a file as text, a character cut at the end dropped. */
const head = (abs: string, bytes: number): string => readStart(abs, bytes).toString('utf8').replace(/\uFFFD$/, '');

/** Every note below `under` (`""`: the whole vault), sorted by path; at most MAX_LISTED. */
export function listNotes(root: string, under = ''): NoteInfo[] {
  const folder = resolveFolder(root, under);
  if (folder === null) return [];
  const rels: string[] = [];
  const visit = (abs: string, rel: string, depth: number): void => {
    if (depth > MAX_DEPTH) return;
    for (const entry of fs.readdirSync(abs, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) visit(path.join(abs, entry.name), childRel, depth + 1);
      else if (entry.isFile() && entry.name.endsWith('.md') && entry.name !== '.md') rels.push(childRel);
    }
  };
  visit(folder.abs, folder.rel, 0);
  rels.sort();
  return rels.slice(0, MAX_LISTED).flatMap((rel) => {
    const abs = path.join(root, ...rel.split('/'));
    try {
      const st = fs.lstatSync(abs);
      return st.isFile() ? [noteInfo(rel, head(abs, Math.min(HEAD_BYTES, st.size)), st.size, st.mtimeMs)] : [];
    } catch {
      return []; // removed meanwhile
    }
  });
}

/** One note with its whole text; KW_ERR_VAULT_NOT_FOUND when it does not exist, KW_ERR_VAULT_TOO_LARGE past `maxBytes`. */
export function readNote(root: string, input: string, maxBytes: number): { note: NoteInfo; content: string } {
  const note = resolveNote(root, input);
  if (note.stat === null) throw new KowalskiError('KW_ERR_VAULT_NOT_FOUND', `there is no note ${JSON.stringify(note.rel)}; list_notes shows what the vault holds`);
  if (note.stat.size > maxBytes) {
    throw new KowalskiError('KW_ERR_VAULT_TOO_LARGE', `the note ${JSON.stringify(note.rel)} is ${note.stat.size} bytes, over the vault's limit of ${maxBytes} ([vault] max_note_bytes)`);
  }
  const content = readStart(note.abs, note.stat.size).toString('utf8');
  return { note: noteInfo(note.rel, content, note.stat.size, note.stat.mtimeMs), content };
}
