/**
 * "Nothing written outside the data folder": a fuzz run works in a root folder holding the
 * data folder and a canary folder beside it; what changed under the root but outside the
 * data folder is a write outside it.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Every path under `root` except under `skip` (relative), with its size and mtime. */
export function snapshot(root: string, skip: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const abs = path.join(dir, e.name);
      const rel = path.relative(root, abs);
      if (rel === skip || rel.startsWith(`${skip}${path.sep}`)) continue;
      const st = fs.lstatSync(abs);
      out.set(rel, `${st.size}:${st.mtimeMs}`);
      if (e.isDirectory()) walk(abs);
    }
  };
  walk(root);
  return out;
}

/** What differs between two snapshots (added, removed or changed paths). */
export function changes(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  const diff: string[] = [];
  for (const [p, v] of after) if (before.get(p) !== v) diff.push(p);
  for (const p of before.keys()) if (!after.has(p)) diff.push(`${p} (removed)`);
  return diff;
}
