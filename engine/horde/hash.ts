/**
 * The content hash of a horde folder: sha256 over every file, so a run records exactly
 * which version of a horde it ran. Bounded: a folder past the limits is an error, never
 * a long walk.
 *
 * For each file, sorted by its relative path (`/`-separated, compared by UTF-16 code
 * units), the hash takes: the path, a NUL, the byte length in decimal, a NUL, the bytes.
 * (The length keeps two different folders from feeding the same stream.) A symbolic link
 * is not followed: its target text is hashed in place of bytes, with the length prefixed
 * by `S`. `.git/` folders are skipped.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export interface HashLimits {
  /** Max files and folders walked (default 2,000). */
  maxEntries: number;
  /** Max total bytes of all files (default 20 MB). */
  maxBytes: number;
}

export const DEFAULT_HASH_LIMITS: HashLimits = { maxEntries: 2000, maxBytes: 20 * 1024 * 1024 };

export type HashResult = { ok: true; hash: string; files: string[] } | { ok: false; message: string };

interface Entry {
  rel: string;
  abs: string;
  link: boolean;
}

export async function hashFolder(dir: string, limits: HashLimits = DEFAULT_HASH_LIMITS): Promise<HashResult> {
  const entries: Entry[] = [];
  let count = 0;
  let bytes = 0;
  const pending = [''];
  while (pending.length > 0) {
    const relDir = pending.pop() as string;
    const listing = await fs.readdir(path.join(dir, relDir), { withFileTypes: true });
    for (const d of listing) {
      if (d.isDirectory() && d.name === '.git') continue;
      count += 1;
      if (count > limits.maxEntries) {
        return { ok: false, message: `the folder holds more than ${limits.maxEntries} files and folders; a horde is a few Markdown files (move data elsewhere)` };
      }
      const rel = relDir === '' ? d.name : `${relDir}/${d.name}`;
      const abs = path.join(dir, rel);
      if (d.isDirectory()) pending.push(rel);
      else if (d.isSymbolicLink()) entries.push({ rel, abs, link: true });
      else if (d.isFile()) {
        bytes += (await fs.stat(abs)).size;
        if (bytes > limits.maxBytes) {
          return { ok: false, message: `the folder holds more than ${limits.maxBytes} bytes; a horde is a few Markdown files (move data elsewhere)` };
        }
        entries.push({ rel, abs, link: false });
      }
    }
  }
  entries.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  const h = createHash('sha256');
  for (const e of entries) {
    const data = e.link ? Buffer.from(await fs.readlink(e.abs), 'utf8') : await fs.readFile(e.abs);
    h.update(e.rel, 'utf8');
    h.update(`\0${e.link ? 'S' : ''}${data.length}\0`, 'utf8');
    h.update(data);
  }
  return { ok: true, hash: h.digest('hex'), files: entries.map((e) => e.rel) };
}
