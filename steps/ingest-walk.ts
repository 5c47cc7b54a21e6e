/**
 * The bounded walk behind `ingest`: plans the copy of a file or folder (counting files,
 * bytes and depth against the step's limits, never following symlinks inside it), then
 * copies the plan. A limit is checked before anything is copied.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KowalskiError } from '../core/index.js';

export interface IngestBudget {
  /** Files and bytes left for this step (shared by all its inputs). */
  files: number;
  bytes: number;
  /** Deepest folder level allowed below an input's root. */
  depth: number;
  /** The limits as configured, for messages. */
  limits: { ingestFiles: number; ingestBytes: number; ingestDepth: number };
}

export interface PlannedFile {
  /** Absolute source path. */
  source: string;
  /** Path relative to the input's root (the file's own name for a single file). */
  rel: string;
  size: number;
}

export interface IngestPlan {
  root: string;
  isFolder: boolean;
  files: PlannedFile[];
  folders: string[];
  bytes: number;
  /** Entries left out, with why: symlinks (never followed) and special files. */
  skipped: Array<{ rel: string; why: string }>;
}

function limitError(input: string, message: string, at: string): KowalskiError {
  return new KowalskiError('KW_ERR_INGEST_LIMIT', `input \`${input}\`: ${message}`, { where: { file: at } });
}

/** Plan the copy of `root` (a file or a folder; the root itself may be a symlink the user named). */
export async function planIngest(input: string, root: string, budget: IngestBudget, signal: AbortSignal): Promise<IngestPlan> {
  let rootStat: fs.Stats;
  try {
    rootStat = await fs.promises.stat(root);
  } catch (err) {
    throw new KowalskiError('KW_ERR_INGEST_SOURCE', `input \`${input}\`: ${root} does not exist or cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      { where: { file: root }, cause: err });
  }
  const plan: IngestPlan = { root, isFolder: rootStat.isDirectory(), files: [], folders: [], bytes: 0, skipped: [] };
  const take = (source: string, rel: string, size: number): void => {
    if (budget.files < 1) {
      throw limitError(input, `more than ${budget.limits.ingestFiles} files to collect (limit ingestFiles); stopped at ${source}`, source);
    }
    if (size > budget.bytes) {
      throw limitError(input, `more than ${budget.limits.ingestBytes} bytes to collect (limit ingestBytes); stopped at ${source}`, source);
    }
    budget.files -= 1;
    budget.bytes -= size;
    plan.bytes += size;
    plan.files.push({ source, rel, size });
  };
  if (!plan.isFolder) {
    if (!rootStat.isFile()) throw new KowalskiError('KW_ERR_INGEST_SOURCE', `input \`${input}\`: ${root} is neither a file nor a folder`, { where: { file: root } });
    take(root, path.basename(root), rootStat.size);
    return plan;
  }
  const stack: Array<{ abs: string; rel: string; depth: number }> = [{ abs: root, rel: '', depth: 0 }];
  while (stack.length > 0) {
    if (signal.aborted) throw new KowalskiError('KW_ERR_STEP_CANCELLED', 'the ingest was stopped');
    const dir = stack.pop();
    if (dir === undefined) break;
    let entries: fs.Dirent[];
    try {
      entries = await fs.promises.readdir(dir.abs, { withFileTypes: true });
    } catch (err) {
      throw new KowalskiError('KW_ERR_INGEST_SOURCE', `input \`${input}\`: cannot read the folder ${dir.abs} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
        { where: { file: dir.abs }, cause: err });
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const abs = path.join(dir.abs, entry.name);
      const rel = dir.rel === '' ? entry.name : `${dir.rel}/${entry.name}`;
      if (entry.isSymbolicLink()) {
        plan.skipped.push({ rel, why: 'symlink (not followed)' });
      } else if (entry.isDirectory()) {
        if (dir.depth + 1 > budget.depth) {
          throw limitError(input, `${abs} is ${dir.depth + 1} folders deep, over the limit of ${budget.limits.ingestDepth} (limit ingestDepth)`, abs);
        }
        plan.folders.push(rel);
        stack.push({ abs, rel, depth: dir.depth + 1 });
      } else if (entry.isFile()) {
        const st = await fs.promises.lstat(abs);
        take(abs, rel, st.size);
      } else {
        plan.skipped.push({ rel, why: 'not a regular file' });
      }
    }
  }
  plan.files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
  return plan;
}

/**
 * Copy a planned file without following a symlink that replaced it since the walk, and
 * without taking more than its planned size plus what is left of the byte budget.
 */
async function copyNoFollow(file: PlannedFile, dest: string, maxBytes: number, input: string): Promise<number> {
  const source = await fs.promises.open(file.source, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  try {
    const mode = (await source.stat()).mode & 0o777;
    const target = await fs.promises.open(dest, 'wx', mode);
    try {
      const buffer = Buffer.allocUnsafe(64 * 1024);
      let copied = 0;
      for (;;) {
        const { bytesRead } = await source.read(buffer, 0, buffer.length, null);
        if (bytesRead === 0) break;
        copied += bytesRead;
        if (copied > maxBytes) throw limitError(input, `${file.source} grew past the byte limit while it was copied (limit ingestBytes)`, file.source);
        await target.write(buffer, 0, bytesRead);
      }
      return copied;
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}

/** Copy a plan into `dest` (emptied first). Returns the bytes copied. */
export async function copyIngest(input: string, plan: IngestPlan, dest: string, budget: IngestBudget, signal: AbortSignal): Promise<number> {
  await fs.promises.rm(dest, { recursive: true, force: true });
  await fs.promises.mkdir(dest, { recursive: true });
  for (const folder of plan.folders) await fs.promises.mkdir(path.join(dest, folder), { recursive: true });
  let total = 0;
  for (const file of plan.files) {
    if (signal.aborted) throw new KowalskiError('KW_ERR_STEP_CANCELLED', 'the ingest was stopped');
    const copied = await copyNoFollow(file, path.join(dest, file.rel), file.size + budget.bytes, input);
    budget.bytes -= Math.max(0, copied - file.size);
    total += copied;
  }
  return total;
}
