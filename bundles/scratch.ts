/** Scratch folders under the data directory's `tmp/`: on the same file system as `hordes/`, so a finished install is one rename. */
import fs from 'node:fs/promises';
import path from 'node:path';

/** `<dataDir>/tmp`. */
export function scratchRoot(dataDir: string): string {
  return path.join(dataDir, 'tmp');
}

/** A new empty folder `<dataDir>/tmp/<prefix>-<random>` (owner-only). */
export async function makeScratch(dataDir: string, prefix: string): Promise<string> {
  const root = scratchRoot(dataDir);
  await fs.mkdir(root, { recursive: true, mode: 0o700 });
  return fs.mkdtemp(path.join(root, `${prefix}-`));
}

export async function removeScratch(dir: string): Promise<void> {
  await fs.rm(dir, { recursive: true, force: true });
}
