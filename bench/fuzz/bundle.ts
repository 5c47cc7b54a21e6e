/**
 * The bundle importer fuzzed: `.kwf.zip` bytes exported from the built-in hordes and the
 * test fixtures, mutated as bytes (bits, sizes, offsets, cuts) or rebuilt with hostile
 * entries (`../`, absolute names, symlinks, duplicates, case twins, huge files), each
 * reviewed and — when accepted — installed into a fresh data folder of its own. A refusal
 * must be a stable code and leave nothing in the scratch folder; nothing may be a symlink
 * afterwards; the runner checks nothing changed outside the data folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync, zipSync } from 'fflate';
import type { Zippable } from 'fflate';
import { discardBundle, exportBundle, installBundle, MANIFEST_NAME, reviewBundle } from '../../bundles/index.js';
import { byPath, sha256Hex } from '../../bundles/manifest.js';
import { builtinKindNames } from '../../engine/index.js';
import type { Rng } from './rng.js';
import { mutateBytes, mutateText } from './rng.js';
import type { FuzzTarget } from './target.js';
import { refusal } from './target.js';

const REPO = fileURLToPath(new URL('../..', import.meta.url));

async function seedBundles(): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for (const parent of [path.join(REPO, 'hordes'), path.join(REPO, 'test', 'fixtures', 'hordes')]) {
    for (const e of fs.readdirSync(parent, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      try {
        out.push(await exportBundle(path.join(parent, e.name), e.name.replace(/[^a-z0-9-]/g, '-')));
      } catch {
        // a fixture that is invalid on purpose does not export
      }
    }
  }
  return out;
}

const S_IFLNK = 0o120000;

/** The seed's entries rebuilt with one or a few hostile changes. */
function hostile(seed: Uint8Array, rng: Rng, outside: string): Uint8Array {
  const files = unzipSync(seed);
  const names = Object.keys(files);
  const entries: [string, Uint8Array, { attrs?: number; os?: number }][] = names.map((n) => [n, files[n]!, {}]);
  // Now and then no change at all: the install path is fuzzed too (under a new id, over the same).
  const rounds = rng.chance(0.1) ? 0 : 1 + rng.size(3);
  for (let r = 0; r < rounds && entries.length > 0; r++) {
    const at = rng.int(entries.length);
    const [name, data] = entries[at]!;
    switch (rng.int(8)) {
      case 0: entries[at]![0] = rng.pick(['../', '../../', 'agents/../../', './', '/', '//', '\\..\\', 'C:/', '~/', `${outside}/`]) + name; break;
      case 1: entries.push([path.join(outside, `pwned-${rng.int(10)}`), data, {}]); break;
      case 2: entries[at]![2] = { os: 3, attrs: ((S_IFLNK | 0o777) << 16) >>> 0 }; entries[at]![1] = new TextEncoder().encode(rng.pick([outside, '../../..', '/etc/passwd', 'agents'])); break;
      case 3: entries.push([name.toUpperCase(), data, {}]); break;
      case 4: entries[at]![1] = new TextEncoder().encode(mutateText(new TextDecoder().decode(data), rng, ['id = ', '"', '\n', '---\n', 'pipeline = [', '[[triggers]]\n'])); break;
      case 5: entries[at]![1] = new Uint8Array(rng.pick([0, 1, 6 * 1024 * 1024])); break;
      case 6: entries[at]![0] = `${name}${rng.pick(['\0', '/', ' ', '.', '\u202E', '\uD800', ':', '*'])}`; break;
      default: entries.splice(at, 1);
    }
  }
  // Mostly the manifest is made to agree again, so the checks behind it are reached.
  const manifestAt = entries.findIndex(([n]) => n === MANIFEST_NAME);
  if (manifestAt >= 0 && rng.chance(0.8)) {
    let manifest: { files: { path: string; bytes: number; sha256: string }[] };
    try {
      manifest = JSON.parse(new TextDecoder().decode(entries[manifestAt]![1])) as typeof manifest;
    } catch {
      manifest = { files: [] };
    }
    manifest.files = entries.filter(([n]) => n !== MANIFEST_NAME && !n.endsWith('/')).map(([n, d]) => ({ path: n, bytes: d.length, sha256: sha256Hex(d) })).sort(byPath);
    entries[manifestAt]![1] = new TextEncoder().encode(JSON.stringify(manifest));
  }
  const zippable: Zippable = {};
  // Names equal but for case go in both; an exact duplicate cannot be written by fflate (byte mutation reaches those).
  for (const [name, data, attrs] of entries) zippable[name] ??= [data, attrs];
  return zipSync(zippable, { level: rng.pick([0, 6]) });
}

function findSymlink(dir: string): string | undefined {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const abs = path.join(dir, e.name);
    if (e.isSymbolicLink()) return abs;
    if (e.isDirectory()) {
      const inner = findSymlink(abs);
      if (inner !== undefined) return inner;
    }
  }
  return undefined;
}

export async function bundleTarget(dataRoot: string, root: string): Promise<FuzzTarget> {
  const seeds = await seedBundles();
  if (seeds.length === 0) throw new Error('no horde could be exported as a seed');
  const knownKinds = builtinKindNames();
  const outside = path.join(root, 'outside');
  return {
    async one(i, rng) {
      const seed = rng.pick(seeds);
      const bytes = rng.chance(0.5) ? mutateBytes(seed, rng) : hostile(seed, rng, outside);
      const dataDir = fs.mkdtempSync(path.join(dataRoot, 'd-'));
      try {
        let outcome: string;
        try {
          const staged = await reviewBundle(bytes, { dataDir, knownKinds, catalog: async () => ({ entries: [] }) });
          try {
            const installed = await installBundle(staged, rng.chance(0.3) ? { id: `fuzz-${i}` } : {});
            const where = path.relative(path.join(dataDir, 'hordes'), installed.dir);
            if (where.startsWith('..') || path.isAbsolute(where)) throw new Error(`installed into ${installed.dir}, outside ${dataDir}/hordes`);
            outcome = 'installed';
          } catch (err) {
            outcome = `install refused: ${refusal(err)}`;
          } finally {
            await discardBundle(staged);
          }
        } catch (err) {
          outcome = refusal(err);
        }
        const scratch = path.join(dataDir, 'tmp');
        const left = fs.existsSync(scratch) ? fs.readdirSync(scratch) : [];
        if (left.length > 0) throw new Error(`${outcome}: left in the scratch folder: ${left.join(', ')}`);
        const link = findSymlink(dataDir);
        if (link !== undefined) throw new Error(`${outcome}: a symlink was written: ${link}`);
        return outcome;
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
    close: async () => {},
  };
}
