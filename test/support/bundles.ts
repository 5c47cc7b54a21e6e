/**
 * Hostile-bundle tests: a valid sample bundle to spoil one thing at a time, a data
 * directory with real content, and the assertion that a review refused a bundle with
 * KW_ERR_BUNDLE_INVALID, named the entry, and left hordes/ and tmp/ as they were.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { BundleInvalidError, discardBundle, reviewBundle } from '../../bundles/index.js';
import type { BundleLimits } from '../../bundles/index.js';
import { tempDir } from '../../testkit/tmp.js';
import type { RawEntry } from './zip-writer.js';

export const SAMPLE: Record<string, string> = {
  'horde.md': '---\nid = "sample"\ndisplay_name = "Sample"\npipeline = ["ask", "check"]\n\n[[triggers]]\nname = "nightly"\nkind = "cron"\nschedule = "0 6 * * *"\n---\n# Sample\n',
  'agents/ask.md': '---\nname = "ask"\nkind = "process"\nprompt_file = "prompts/ask.md"\ntools = ["web_fetch"]\n---\n',
  'agents/check.md': '---\nname = "check"\nkind = "verify"\nverify_command = "npm test"\n---\n',
  'prompts/ask.md': 'Say hi.\n',
};

const sha = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

export function manifestOf(files: Record<string, string | Uint8Array>, patch: Record<string, unknown> = {}): string {
  const list = Object.entries(files).map(([p, d]) => ({ path: p, bytes: Buffer.from(d).length, sha256: sha(Buffer.from(d)) })).sort((a, b) => (a.path < b.path ? -1 : 1));
  return JSON.stringify({ format: 1, hordeId: 'sample', files: list, tools: ['web_fetch'], mcpServers: [], commands: ['npm test'], ...patch });
}

/** The sample as raw entries, manifest included, plus `extra` entries (not in the manifest). */
export function sampleEntries(files: Record<string, string | Uint8Array> = SAMPLE, extra: RawEntry[] = [], manifest = manifestOf(files)): RawEntry[] {
  return [
    ...Object.entries(files).map(([name, d]) => ({ name, data: Buffer.from(d) })),
    { name: 'kwf-manifest.json', data: Buffer.from(manifest) },
    ...extra,
  ];
}

export interface Home {
  dataDir: string;
  snapshot(): string[];
}

function listTree(dir: string, rel = ''): string[] {
  if (!fs.existsSync(path.join(dir, rel))) return [];
  return fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).flatMap((d) => {
    const r = rel === '' ? d.name : `${rel}/${d.name}`;
    return d.isDirectory() ? [`${r}/`, ...listTree(dir, r)] : [r];
  }).sort();
}

/** A data directory with one user horde and a file in tmp/, so "unchanged" compares real content. */
export function home(t: TestContext): Home {
  const dataDir = tempDir(t, 'kw-bundle-');
  fs.mkdirSync(path.join(dataDir, 'hordes', 'mine', 'agents'), { recursive: true });
  fs.writeFileSync(path.join(dataDir, 'hordes', 'mine', 'horde.md'), '---\nid = "mine"\npipeline = ["a"]\n---\n');
  fs.writeFileSync(path.join(dataDir, 'hordes', 'mine', 'agents', 'a.md'), '---\nname = "a"\nkind = "verify"\nverify_command = "true"\n---\n');
  fs.mkdirSync(path.join(dataDir, 'tmp'));
  fs.writeFileSync(path.join(dataDir, 'tmp', 'unrelated.txt'), 'keep');
  const snapshot = () => [...listTree(path.join(dataDir, 'hordes')).map((p) => `hordes/${p}`), ...listTree(path.join(dataDir, 'tmp')).map((p) => `tmp/${p}`)];
  return { dataDir, snapshot };
}

/** Review `bytes`; it must be refused, nothing may change; the error is returned for its message. */
export async function refused(t: TestContext, bytes: Uint8Array, limits: Partial<BundleLimits> = {}): Promise<BundleInvalidError> {
  const h = home(t);
  const before = h.snapshot();
  let caught: unknown;
  try {
    const staged = await reviewBundle(bytes, { dataDir: h.dataDir, limits });
    await discardBundle(staged);
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof BundleInvalidError, `expected a refusal, got ${caught === undefined ? 'an accepted bundle' : String(caught)}`);
  assert.equal(caught.code, 'KW_ERR_BUNDLE_INVALID');
  assert.match(caught.message, /nothing was written/);
  assert.deepEqual(h.snapshot(), before, 'hordes/ and tmp/ must be unchanged');
  return caught;
}

/** The message names the entry (quoted) and matches the rule. */
export function names(err: BundleInvalidError, entry: string, rule: RegExp): void {
  assert.ok(err.message.includes(`bundle entry ${JSON.stringify(entry)}:`), `${err.message}\nshould name ${JSON.stringify(entry)}`);
  assert.match(err.message, rule);
  assert.equal(err.where?.file, entry);
}
