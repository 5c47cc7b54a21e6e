/**
 * The files of a review step: the artifact's hash as the operator saw it, and an edit
 * staged beside the run before its `artifact.edited` event is committed, then put in
 * place by the review step's attempt (rename + fsync of the folder). Shared by the engine
 * (which stages) and the `review` kind (which applies).
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** A file's size and sha256, or null when it does not exist. */
export interface FileState {
  bytes: number;
  sha256: string;
}

export function sha256Of(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The file's state now; null when there is none. */
export function fileState(abs: string): FileState | null {
  let data: Buffer;
  try {
    data = fs.readFileSync(abs);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  return { bytes: data.length, sha256: sha256Of(data) };
}

/** The hash a review asks about when the artifact is missing (approving it approves nothing). */
export const MISSING_ARTIFACT = 'missing';

/** Where an edit with content hash `after` of review step `step` waits to be put in place: `<runDir>/reviews/<step>/<after>`. */
export function stagedEditPath(runDir: string, step: string, after: string): string {
  return path.join(runDir, 'reviews', step, after);
}

function syncDir(dir: string): void {
  const fd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Write the edited content durably at `staged` (temp, fsync, rename, fsync of the folder). */
export function stageEdit(staged: string, content: string): void {
  fs.mkdirSync(path.dirname(staged), { recursive: true });
  const temp = `${staged}.tmp`;
  const fd = fs.openSync(temp, 'w', 0o600);
  try {
    fs.writeFileSync(fd, content);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(temp, staged);
  syncDir(path.dirname(staged));
}

/** Put the staged edit in place of `target`, atomically (the staged file is moved: its mode and content become the artifact's). */
export function applyStagedEdit(staged: string, target: string): void {
  const mode = fs.statSync(target).mode & 0o777;
  fs.chmodSync(staged, mode);
  fs.renameSync(staged, target);
  syncDir(path.dirname(target));
}
