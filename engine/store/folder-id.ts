/**
 * The data folder's own id: random, made at the folder's first start with a Postgres
 * store and kept in `kowalski.folder-id`. The nodes table records it, so a node that
 * starts on the folder (holding its lock) knows which earlier nodes were this folder's
 * and are dead. A folder copied to make another node must not keep it (delete the file:
 * a new one is made).
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../steps/index.js';

const FILE = 'kowalski.folder-id';

/** The folder's id as kept, without making one (undefined: none yet, or damaged). */
export function readFolderId(dataDir: string): string | undefined {
  let text = '';
  try {
    text = fs.readFileSync(path.join(dataDir, FILE), 'utf8').trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  return /^[0-9a-f]{32}$/.test(text) ? text : undefined;
}

export function folderIdOf(dataDir: string): string {
  const file = path.join(dataDir, FILE);
  const kept = readFolderId(dataDir);
  if (kept !== undefined) return kept;
  // None yet, or damaged: a new one (earlier nodes of the folder then wait for their leases to lapse, as any dead node's).
  const id = randomBytes(16).toString('hex');
  writeFileAtomic(file, `${id}\n`, { mode: 0o600 });
  return id;
}
