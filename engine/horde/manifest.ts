/**
 * The manifest of a horde folder: `horde.md`, or — as in 1.x, whose markdown apps are
 * `app.md` — `app.md` when the folder has no `horde.md`. Everything that looks for a
 * horde in a folder (loader, catalog, bundles) asks here.
 */
import fs from 'node:fs/promises';
import path from 'node:path';

export type ManifestFile = 'horde.md' | 'app.md';

/** In the order they are looked for. */
export const MANIFEST_FILES: readonly ManifestFile[] = ['horde.md', 'app.md'];

/** The manifest among file names (a bundle's entries), or undefined. */
export function manifestAmong(names: { has(name: string): boolean }): ManifestFile | undefined {
  return MANIFEST_FILES.find((m) => names.has(m));
}

/** The manifest file of `dir`, or undefined when it has neither. */
export async function manifestOf(dir: string): Promise<ManifestFile | undefined> {
  for (const m of MANIFEST_FILES) {
    if (await fs.stat(path.join(dir, m)).then((s) => s.isFile(), () => false)) return m;
  }
  return undefined;
}
