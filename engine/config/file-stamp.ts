import fs from 'node:fs';

/** What tells one version of a file from another without reading it: its mtime, size and inode ('none' when missing). */
export function fileStamp(file: string): string {
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  return stat === undefined ? 'none' : `${stat.mtimeMs}:${stat.size}:${stat.ino}`;
}
