/**
 * Diffs proposed in Markdown, turned into a plan of file changes: the fenced ```diff /
 * ```patch blocks are parsed (jsdiff), every path is checked to stay inside the project
 * folder, and every new file content is computed before anything is written, so a
 * conflict anywhere changes nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { applyPatch, parsePatch } from 'diff';
import type { StructuredPatch } from 'diff';
import { KowalskiError, messageOf } from '../core/index.js';
import { resolveInside, writeFileAtomic } from './paths.js';

export interface DiffBlock {
  /** 1-based number of the diff block in the document. */
  index: number;
  /** 1-based line of its opening fence. */
  line: number;
  text: string;
}

export interface FilePatch {
  /** Project-relative path the patch reads; absent for a new file. */
  from?: string;
  /** Project-relative path it writes; absent for a deletion. */
  to?: string;
  patch: StructuredPatch;
  block: number;
}

export interface FileChange {
  path: string;
  action: 'create' | 'modify' | 'delete';
  hunks: number;
  added: number;
  removed: number;
  /** The new content; absent for a deletion. */
  after?: string;
  /** Permission bits of the file as it was. */
  mode?: number;
}

export interface Conflict {
  path: string;
  block: number;
  /** 1-based hunk of that file's patch, when one hunk is to blame. */
  hunk?: number;
  header?: string;
  reason: string;
}

export interface PatchPlan {
  changes: FileChange[];
  conflicts: Conflict[];
}

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})\s*([^\s`]*)/;

/** Every fenced block whose info word is `diff` or `patch` (other fences are skipped whole). */
export function extractDiffBlocks(markdown: string): DiffBlock[] {
  const lines = markdown.split(/\r?\n/);
  const blocks: DiffBlock[] = [];
  for (let i = 0; i < lines.length; i += 1) {
    const open = FENCE_OPEN.exec(lines[i] ?? '');
    if (open === null) continue;
    const bar = open[1] ?? '```';
    const info = (open[2] ?? '').toLowerCase();
    const close = new RegExp(`^ {0,3}${bar[0] === '`' ? '`' : '~'}{${bar.length},}\\s*$`);
    let j = i + 1;
    while (j < lines.length && !close.test(lines[j] ?? '')) j += 1;
    if (info === 'diff' || info === 'patch') {
      blocks.push({ index: blocks.length + 1, line: i + 1, text: `${lines.slice(i + 1, j).join('\n')}\n` });
    }
    i = j;
  }
  return blocks;
}

/** A diff header's file name without git's `a/` / `b/` prefix; undefined for `/dev/null`. */
function fileName(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  const name = raw.trim();
  if (name === '' || name === '/dev/null') return undefined;
  return name.startsWith('a/') || name.startsWith('b/') ? name.slice(2) : name;
}

/** Parse the blocks; a block that does not parse, or names a path outside `projectDir`, is KW_ERR_PATCH_INVALID. */
export function parseDiffBlocks(blocks: DiffBlock[], projectDir: string, source: string): FilePatch[] {
  const out: FilePatch[] = [];
  for (const block of blocks) {
    const where = { file: source, line: block.line };
    let parsed: StructuredPatch[];
    try {
      parsed = parsePatch(block.text);
    } catch (err) {
      throw new KowalskiError('KW_ERR_PATCH_INVALID', `diff block ${block.index} (line ${block.line}) does not parse: ${messageOf(err)}`, { where });
    }
    for (const patch of parsed) {
      const named = patch.oldFileName !== undefined || patch.newFileName !== undefined;
      if (patch.hunks.length === 0 && !named) continue; // blank lines around the diff
      if (patch.hunks.length === 0) {
        throw new KowalskiError('KW_ERR_PATCH_INVALID', `diff block ${block.index} (line ${block.line}): the diff of ${patch.newFileName ?? patch.oldFileName ?? '?'} has no hunks`, { where });
      }
      const from = fileName(patch.oldFileName);
      const to = fileName(patch.newFileName);
      if (from === undefined && to === undefined) {
        throw new KowalskiError('KW_ERR_PATCH_INVALID', `diff block ${block.index} (line ${block.line}) has a hunk that names no file (--- / +++ headers missing)`, { where });
      }
      const what = `diff block ${block.index} (line ${block.line}): the path`;
      for (const rel of [from, to]) if (rel !== undefined) resolveInside(projectDir, rel, 'KW_ERR_PATCH_INVALID', what, where);
      const fp: FilePatch = { patch, block: block.index };
      if (from !== undefined) fp.from = path.normalize(from);
      if (to !== undefined) fp.to = path.normalize(to);
      out.push(fp);
    }
  }
  return out;
}

function hunkHeader(h: StructuredPatch['hunks'][number]): string {
  return `@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`;
}

function lineCounts(patch: StructuredPatch): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const h of patch.hunks) {
    for (const l of h.lines) {
      if (l.startsWith('+')) added += 1;
      else if (l.startsWith('-')) removed += 1;
    }
  }
  return { added, removed };
}

/** Compute every change (in memory) without writing anything. */
export function planPatches(projectDir: string, patches: FilePatch[]): PatchPlan {
  const disk = new Map<string, { content: string; mode: number } | null>();
  const state = new Map<string, string | null>();
  const read = (rel: string): string | null => {
    if (state.has(rel)) return state.get(rel) ?? null;
    if (!disk.has(rel)) {
      const abs = path.join(projectDir, rel);
      let found: { content: string; mode: number } | null = null;
      try {
        const st = fs.statSync(abs);
        if (st.isFile()) found = { content: fs.readFileSync(abs, 'utf8'), mode: st.mode & 0o7777 };
      } catch {
        found = null;
      }
      disk.set(rel, found);
    }
    return disk.get(rel)?.content ?? null;
  };
  const stats = new Map<string, { hunks: number; added: number; removed: number }>();
  const conflicts: Conflict[] = [];
  for (const fp of patches) {
    const target = fp.to ?? fp.from ?? '';
    const base = fp.from === undefined ? null : read(fp.from);
    if (fp.from === undefined && read(target) !== null) {
      conflicts.push({ path: target, block: fp.block, reason: 'the diff creates this file, but it already exists' });
      continue;
    }
    if (fp.from !== undefined && fp.to !== undefined && fp.to !== fp.from && read(fp.to) !== null) {
      conflicts.push({ path: fp.to, block: fp.block, reason: `the diff renames ${fp.from} to this file, but it already exists` });
      continue;
    }
    if (fp.from !== undefined && base === null) {
      conflicts.push({ path: fp.from, block: fp.block, reason: 'the file does not exist' });
      continue;
    }
    const result = applyPatch(base ?? '', fp.patch);
    if (result === false) {
      const failing = fp.patch.hunks
        .map((h, i) => ({ h, i }))
        .filter(({ h }) => applyPatch(base ?? '', { ...fp.patch, hunks: [h] }) === false);
      if (failing.length === 0) {
        conflicts.push({ path: fp.from ?? target, block: fp.block, reason: 'each hunk applies alone, but not all of them together (overlapping or out of order)' });
      }
      for (const { h, i } of failing) {
        conflicts.push({ path: fp.from ?? target, block: fp.block, hunk: i + 1, header: hunkHeader(h), reason: 'the lines it changes are not in the file as it is' });
      }
      continue;
    }
    if (fp.from !== undefined && fp.from !== fp.to) state.set(fp.from, null);
    if (fp.to !== undefined) state.set(fp.to, result);
    const counts = lineCounts(fp.patch);
    for (const rel of new Set([fp.from, fp.to])) {
      if (rel === undefined) continue;
      const s = stats.get(rel) ?? { hunks: 0, added: 0, removed: 0 };
      stats.set(rel, { hunks: s.hunks + fp.patch.hunks.length, added: s.added + counts.added, removed: s.removed + counts.removed });
    }
  }
  const changes: FileChange[] = [];
  for (const [rel, after] of state) {
    const before = disk.get(rel) ?? null;
    const s = stats.get(rel) ?? { hunks: 0, added: 0, removed: 0 };
    if (after === null && before === null) continue;
    const change: FileChange = { path: rel, action: after === null ? 'delete' : before === null ? 'create' : 'modify', ...s };
    if (after !== null) change.after = after;
    if (before !== null) change.mode = before.mode;
    changes.push(change);
  }
  changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { changes, conflicts };
}

/** Write a conflict-free plan: each file through a temp file and a rename; deletions last. */
export function writePlan(projectDir: string, plan: PatchPlan): void {
  if (plan.conflicts.length > 0) throw new KowalskiError('KW_ERR_PATCH_CONFLICT', 'refusing to write a plan with conflicts');
  for (const change of plan.changes) {
    const abs = resolveInside(projectDir, change.path, 'KW_ERR_PATCH_INVALID', 'the path');
    if (change.after !== undefined) writeFileAtomic(abs, change.after, change.mode === undefined ? {} : { mode: change.mode });
  }
  for (const change of plan.changes) {
    if (change.action === 'delete') fs.rmSync(resolveInside(projectDir, change.path, 'KW_ERR_PATCH_INVALID', 'the path'), { force: true });
  }
}
