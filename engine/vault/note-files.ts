/**
 * A note on disk as the audit sees it — its bytes and their SHA-256, or absent — and the
 * one way the vault changes a note: atomically. The new text goes to a temp file beside
 * the note (opened exclusive, so never through a planted link), is fsynced, renamed into
 * place, and the folder is fsynced, so after a crash the note is wholly the old text or
 * wholly the new, and the rename itself is on disk before the audit says `done`.
 */
import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir, rename, rm, unlink } from 'node:fs/promises';
import path from 'node:path';

/** A note's content now; `bytes` null when it does not exist. */
export interface NoteState {
  bytes: Buffer | null;
  sha256: string | null;
}

export const ABSENT: NoteState = { bytes: null, sha256: null };

export function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function stateOf(bytes: Buffer | null): NoteState {
  return bytes === null ? ABSENT : { bytes, sha256: sha256(bytes) };
}

/** The note's bytes (never through a link), or ABSENT. */
export async function readState(abs: string): Promise<NoteState> {
  let fh;
  try {
    fh = await open(abs, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return ABSENT;
    throw err;
  }
  try {
    return stateOf(await fh.readFile());
  } finally {
    await fh.close();
  }
}

/** Flush a folder's entries (a rename, a new or removed name) to disk. */
async function syncDir(dir: string): Promise<void> {
  const fh = await open(dir, constants.O_RDONLY | constants.O_DIRECTORY);
  try {
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** Create the folders of `rel` below `root` that are missing, each one's parent synced so the new name survives a crash. */
async function ensureFolders(root: string, rel: string): Promise<string> {
  let cur = root;
  for (const segment of rel.split('/').slice(0, -1)) {
    const next = path.join(cur, segment);
    const exists = await lstat(next).then(() => true, (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return false;
      throw err;
    });
    if (!exists) {
      await mkdir(next, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'EEXIST') throw err;
      });
      await syncDir(cur);
    }
    cur = next;
  }
  return cur;
}

/**
 * Make the note at `rel` (below `root`) hold exactly `after`, or remove it when `after`
 * is null: temp file + fsync + rename + fsync of the folder. A new note is owner-only; a
 * replaced one keeps its mode.
 */
export async function putNote(root: string, rel: string, after: Buffer | null): Promise<void> {
  const abs = path.join(root, ...rel.split('/'));
  if (after === null) {
    await unlink(abs).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
    await syncDir(path.dirname(abs));
    return;
  }
  const dir = await ensureFolders(root, rel);
  const mode = await lstat(abs).then((st) => st.mode & 0o777, () => 0o600);
  const temp = path.join(dir, `.kw-note-${randomBytes(6).toString('hex')}.tmp`);
  try {
    const fh = await open(temp, 'wx', mode);
    try {
      await fh.writeFile(after);
      await fh.sync();
    } finally {
      await fh.close();
    }
    await rename(temp, abs);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
  await syncDir(dir);
}

/** Whether the file was last changed before `atMs` (false when it is gone). */
async function changedBefore(abs: string, atMs: number): Promise<boolean> {
  const stat = await lstat(abs).catch(() => undefined);
  return stat !== undefined && stat.mtimeMs < atMs;
}

/** The name of a note's temp file (putNote): what a write killed before its rename leaves. */
const TEMP_NOTE = /^\.kw-note-[0-9a-f]{12}\.tmp$/;

/**
 * Remove the temp files writes killed before their rename left anywhere below `root` (at
 * engine start, when no write is under way: one engine per data folder). Links are not
 * followed; only regular files named like putNote's temp files go. Resolves with how many.
 * `beforeMs` (a vault folder other nodes write at the same time): only temp files last
 * changed before that time (ms since the epoch) go; younger ones may be a live node's
 * write in flight.
 */
export async function sweepTempNotes(root: string, beforeMs?: number): Promise<number> {
  let swept = 0;
  const visit = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true }).catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'ENOTDIR') return [];
      throw err;
    });
    for (const e of entries) {
      const abs = path.join(dir, e.name);
      if (e.isDirectory()) await visit(abs);
      else if (e.isFile() && TEMP_NOTE.test(e.name)) {
        if (beforeMs !== undefined && !await changedBefore(abs, beforeMs)) continue;
        await rm(abs, { force: true });
        swept += 1;
      }
    }
  };
  await visit(root);
  return swept;
}
