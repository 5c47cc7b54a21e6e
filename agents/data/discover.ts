/**
 * The data files under the root: `.csv`, `.tsv`, `.parquet`, `.json`, `.ndjson`/`.jsonl`
 * and `.xlsx`, found recursively in name order. Bounded: dot-folders, dot-files, Office
 * lock files (`~$…`) and `node_modules` are skipped; at most 500 data files, 20,000
 * folder entries and 16 levels are looked at; a symlink is followed only when its real
 * path stays inside the root (a link out is listed as skipped). The fingerprint (every
 * file's path, size and mtime) is how a change is noticed.
 */
import type { Dirent, Stats } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import path from 'node:path';

export type DataKind = 'csv' | 'tsv' | 'parquet' | 'json' | 'ndjson' | 'xlsx';

export interface DataFile {
  /** Relative to the root, `/`-separated. */
  rel: string;
  /** The real absolute path. */
  abs: string;
  kind: DataKind;
  size: number;
  mtimeMs: number;
}

export interface Discovery {
  files: DataFile[];
  skipped: { source: string; error: string }[];
  /** Changes when any file is added, removed, resized or touched. */
  fingerprint: string;
}

export interface DiscoverLimits {
  /** Data files read at most (default 500). */
  maxFiles?: number;
  /** Folder entries looked at at most (default 20,000). */
  maxEntries?: number;
  /** Folder levels below the root (default 16). */
  maxDepth?: number;
}

const KINDS: Record<string, DataKind> = {
  '.csv': 'csv', '.tsv': 'tsv', '.parquet': 'parquet', '.json': 'json', '.ndjson': 'ndjson', '.jsonl': 'ndjson', '.xlsx': 'xlsx',
};

export function kindOf(name: string): DataKind | undefined {
  return KINDS[path.extname(name).toLowerCase()];
}

function inside(root: string, real: string): boolean {
  const rel = path.relative(root, real);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** Walk `root` (a real path). */
export async function discover(root: string, limits: DiscoverLimits = {}): Promise<Discovery> {
  const maxFiles = limits.maxFiles ?? 500;
  const maxEntries = limits.maxEntries ?? 20_000;
  const maxDepth = limits.maxDepth ?? 16;
  const files: DataFile[] = [];
  const skipped: Discovery['skipped'] = [];
  const seenDirs = new Set<string>([root]);
  let entries = 0;
  let full = false;

  async function walk(dir: string, relDir: string, depth: number): Promise<void> {
    let list: Dirent[];
    try {
      list = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of list) {
      if (full) return;
      entries += 1;
      if (entries > maxEntries) {
        full = true;
        skipped.push({ source: relDir === '' ? '.' : relDir, error: `more than ${maxEntries} entries under the root: the rest were not looked at` });
        return;
      }
      const name = entry.name;
      if (name.startsWith('.') || name.startsWith('~$') || name === 'node_modules') continue;
      const abs = path.join(dir, name);
      const rel = relDir === '' ? name : `${relDir}/${name}`;
      let real = abs;
      let st: Stats;
      try {
        if (entry.isSymbolicLink()) {
          real = await realpath(abs);
          if (!inside(root, real)) {
            if (kindOf(name) !== undefined) skipped.push({ source: rel, error: 'a symbolic link to outside the root: not read' });
            continue;
          }
        }
        st = await stat(real);
      } catch {
        continue;
      }
      if (st.isDirectory()) {
        if (depth >= maxDepth || seenDirs.has(real)) continue;
        seenDirs.add(real);
        await walk(real, rel, depth + 1);
        continue;
      }
      const kind = kindOf(name);
      if (!st.isFile() || kind === undefined) continue;
      if (files.length >= maxFiles) {
        full = true;
        skipped.push({ source: rel, error: `more than ${maxFiles} data files under the root: this one and the rest were not read` });
        return;
      }
      files.push({ rel, abs: real, kind, size: st.size, mtimeMs: st.mtimeMs });
    }
  }

  await walk(root, '', 0);
  const fingerprint = JSON.stringify([files.map((f) => [f.rel, f.size, f.mtimeMs]), skipped]);
  return { files, skipped, fingerprint };
}
