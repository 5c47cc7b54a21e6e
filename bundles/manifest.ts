/**
 * `kwf-manifest.json`, the bundle's table of contents: every file with its size and
 * sha256, the horde's id, and what it wants (tools, MCP servers, commands). An import
 * accepts a bundle only when the manifest and the files agree exactly.
 */
import { createHash } from 'node:crypto';
import type { HordeWants } from './summary.js';
import { BundleInvalidError } from './reject.js';
import { messageOf } from '../core/index.js';

export const MANIFEST_NAME = 'kwf-manifest.json';
export const MANIFEST_FORMAT = 1;

export interface ManifestFile {
  /** `/`-separated, relative to the horde folder. */
  path: string;
  bytes: number;
  /** Hex. */
  sha256: string;
}

export interface Manifest extends HordeWants {
  format: 1;
  hordeId: string;
  /** Sorted by path (UTF-16 code units). */
  files: ManifestFile[];
}

export const sha256Hex = (data: Uint8Array): string => createHash('sha256').update(data).digest('hex');

export const byPath = (a: { path: string }, b: { path: string }): number => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0);

export function buildManifest(hordeId: string, files: ReadonlyMap<string, Uint8Array>, wants: HordeWants): Manifest {
  const list = [...files].map(([path, data]) => ({ path, bytes: data.length, sha256: sha256Hex(data) })).sort(byPath);
  return { format: MANIFEST_FORMAT, hordeId, files: list, tools: wants.tools, mcpServers: wants.mcpServers, commands: wants.commands };
}

/** The manifest's bytes as written into the bundle (stable: same manifest, same bytes). */
export function encodeManifest(manifest: Manifest): Uint8Array {
  return Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`, 'utf8');
}

function bad(key: string, rule: string): BundleInvalidError {
  return new BundleInvalidError(`bundle entry "${MANIFEST_NAME}": ${key} ${rule}; nothing was written`, { where: { file: MANIFEST_NAME, key } });
}

function stringList(value: unknown, key: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) throw bad(key, 'must be a list of strings');
  return value as string[];
}

/** Parse and shape-check the manifest (its agreement with the files is `checkManifest`). */
export function parseManifest(data: Uint8Array | undefined): Manifest {
  if (data === undefined) throw new BundleInvalidError(`bundle refused: it has no ${MANIFEST_NAME} (not a kowalski bundle); nothing was written`, { where: { file: MANIFEST_NAME } });
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(data).toString('utf8'));
  } catch (err) {
    throw bad('the file', `is not JSON (${messageOf(err)})`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad('the file', 'must hold a JSON object');
  const m = raw as Record<string, unknown>;
  if (m.format !== MANIFEST_FORMAT) throw bad('format', `is ${JSON.stringify(m.format)}; this kowalski reads format ${MANIFEST_FORMAT}`);
  if (typeof m.hordeId !== 'string') throw bad('hordeId', 'must be a string');
  if (!Array.isArray(m.files)) throw bad('files', 'must be a list');
  const files = m.files.map((f: unknown, i): ManifestFile => {
    const e = f as Record<string, unknown>;
    if (typeof f !== 'object' || f === null || typeof e.path !== 'string' || !Number.isSafeInteger(e.bytes) || typeof e.sha256 !== 'string' || !/^[0-9a-f]{64}$/.test(e.sha256)) {
      throw bad(`files[${i}]`, 'must be {path, bytes, sha256} (sha256 as 64 lower-case hex digits)');
    }
    return { path: e.path, bytes: e.bytes as number, sha256: e.sha256 };
  });
  return {
    format: MANIFEST_FORMAT, hordeId: m.hordeId, files,
    tools: stringList(m.tools, 'tools'), mcpServers: stringList(m.mcpServers, 'mcpServers'), commands: stringList(m.commands, 'commands'),
  };
}

/** The files are exactly those the manifest lists, with the sizes and hashes it lists. */
export function checkManifestFiles(manifest: Manifest, files: ReadonlyMap<string, Uint8Array>): void {
  const listed = new Map<string, ManifestFile>();
  for (const [i, f] of manifest.files.entries()) {
    if (listed.has(f.path)) throw bad(`files[${i}]`, `lists ${JSON.stringify(f.path)} twice`);
    listed.set(f.path, f);
  }
  for (const [path, data] of files) {
    const f = listed.get(path);
    if (f === undefined) throw new BundleInvalidError(`bundle entry ${JSON.stringify(path)}: the manifest does not list it (an extra file); nothing was written`, { where: { file: path } });
    if (f.bytes !== data.length) throw new BundleInvalidError(`bundle entry ${JSON.stringify(path)}: it is ${data.length} bytes, the manifest says ${f.bytes}; nothing was written`, { where: { file: path } });
    if (f.sha256 !== sha256Hex(data)) throw new BundleInvalidError(`bundle entry ${JSON.stringify(path)}: its sha256 differs from the manifest's; nothing was written`, { where: { file: path } });
  }
  for (const f of manifest.files) {
    if (!files.has(f.path)) throw new BundleInvalidError(`bundle entry ${JSON.stringify(f.path)}: the manifest lists it but the bundle does not hold it; nothing was written`, { where: { file: f.path } });
  }
}

/** The manifest's id and wants are the horde's own: a manifest that hides a command or a tool is refused. */
export function checkManifestHorde(manifest: Manifest, hordeId: string, wants: HordeWants): void {
  if (manifest.hordeId !== hordeId) throw bad('hordeId', `is ${JSON.stringify(manifest.hordeId)} but horde.md says id = ${JSON.stringify(hordeId)}`);
  const same = (a: string[], b: string[]): boolean => a.length === b.length && a.every((v, i) => v === b[i]);
  for (const key of ['tools', 'mcpServers', 'commands'] as const) {
    const norm = (list: string[]): string[] => [...new Set(list)].sort();
    if (!same(norm(manifest[key]), norm(wants[key]))) {
      throw bad(key, `is ${JSON.stringify(manifest[key])} but the horde's steps say ${JSON.stringify(wants[key])}`);
    }
  }
}
