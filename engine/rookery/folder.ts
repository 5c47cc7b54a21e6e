/** Writing a rendered draft's files into a folder (made here, owner-only), each file flushed to disk when asked. */
import fs from 'node:fs/promises';
import path from 'node:path';

/** Write `files` (relative path → text) under `dir`, which must not exist yet. */
export async function writeFolder(dir: string, files: ReadonlyMap<string, string>, options: { fsync: boolean }): Promise<void> {
  await fs.mkdir(dir, { mode: 0o700 });
  for (const [rel, text] of files) {
    const abs = path.join(dir, rel);
    await fs.mkdir(path.dirname(abs), { recursive: true });
    const handle = await fs.open(abs, 'wx');
    try {
      await handle.writeFile(text, 'utf8');
      if (options.fsync) await handle.sync();
    } finally {
      await handle.close();
    }
  }
}

/** Flush a folder's entries (a rename into it) to disk; a no-op where folders cannot be opened (Windows). */
export async function syncFolder(dir: string): Promise<void> {
  let handle: fs.FileHandle | undefined;
  try {
    handle = await fs.open(dir, 'r');
    await handle.sync();
  } catch {
    // Folders cannot be fsynced everywhere; the rename itself is still atomic.
  } finally {
    await handle?.close();
  }
}
