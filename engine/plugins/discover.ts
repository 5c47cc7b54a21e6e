/**
 * Finding plugins: npm packages installed under `<data>/plugins/` (named in its package.json's
 * dependencies, each with `"kowalski": {"plugin": "kowalski-plugin.toml"}`) and plain folders
 * under `$KOWALSKI_PLUGIN_DIR` (default `<data>/plugins/local/`). Each is read and checked
 * here (each file through readPluginFile: a regular file of bounded size, or refused at once);
 * whatever fails is recorded with its phase and code, and the others go on. On a name clash
 * the package wins, with a warning.
 */
import fs from 'node:fs/promises';
import path from 'node:path';
import { KowalskiError, NO_PROGRESS, toPlainError, messageOf } from '../../core/index.js';
import type { Progress } from '../../contract/progress.js';
import { MANIFEST_FILE, MANIFEST_MAX_BYTES, parseManifest } from './manifest.js';
import { readPluginFile } from './plugin-file.js';
import type { PluginFailure, PluginManifest, PluginPhase, PluginSource } from './types.js';

/** Most plugins of each kind looked at (the rest are reported once). */
const MAX_PLUGINS = 200;
/** The largest package.json read, bytes. */
const PACKAGE_JSON_MAX_BYTES = 1024 * 1024;

export interface DiscoveredPlugin {
  /** The manifest's name; before the manifest was read, the package's or the folder's name. */
  name: string;
  source: PluginSource;
  /** Its folder (a real path once found). */
  root: string;
  manifest: PluginManifest | null;
  warnings: string[];
  failures: PluginFailure[];
}

export interface DiscoverOptions {
  /** `<data>/plugins`. */
  pluginsDir: string;
  /** Folder plugins: `$KOWALSKI_PLUGIN_DIR`, default `<data>/plugins/local`. */
  localDir: string;
  kowalskiVersion: string;
  now(): number;
  /** Told of each plugin checked: phase `packages` (of `<data>/plugins/package.json`'s dependencies), then `folders` (default none). */
  onProgress?: Progress;
}

/** The folder plugins' folder for this environment. */
export function localPluginDir(pluginsDir: string, env: NodeJS.ProcessEnv): string {
  const dir = env.KOWALSKI_PLUGIN_DIR;
  return dir === undefined || dir === '' ? path.join(pluginsDir, 'local') : path.resolve(dir);
}

export async function discoverPlugins(o: DiscoverOptions): Promise<DiscoveredPlugin[]> {
  const fail = (p: DiscoveredPlugin, phase: PluginPhase, err: unknown): void => {
    const plain = toPlainError(err, 'KW_ERR_PLUGIN_MANIFEST');
    p.failures.push({ phase, code: plain.code, message: plain.message, at: o.now() });
  };
  const packages = await packagePlugins(o, fail);
  const folders = await folderPlugins(o, fail);
  const byName = new Map<string, DiscoveredPlugin>();
  for (const p of [...packages, ...folders]) {
    const first = byName.get(p.name);
    if (first === undefined) {
      byName.set(p.name, p);
      continue;
    }
    const why = first.source === 'package' && p.source === 'folder' ? 'the package wins' : 'the first found wins';
    first.warnings.push(`another plugin named "${p.name}" (${p.source} ${p.root}) is ignored: ${why}`);
  }
  return [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
}

type Fail = (p: DiscoveredPlugin, phase: PluginPhase, err: unknown) => void;

/** Reports `0 of n` of `phase` now, then one more done at each call (with the plugin just checked). */
function counter(phase: string, all: readonly string[], onProgress: Progress = NO_PROGRESS): (item: string) => void {
  let done = 0;
  onProgress({ phase, done, total: all.length });
  return (item) => onProgress({ phase, done: ++done, total: all.length, item });
}

const manifestError = (message: string): KowalskiError => new KowalskiError('KW_ERR_PLUGIN_MANIFEST', message);

async function readJson(file: string): Promise<Record<string, unknown>> {
  const text = await readPluginFile(file, PACKAGE_JSON_MAX_BYTES);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw manifestError(`${file}: is not JSON: ${messageOf(err)}`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw manifestError(`${file}: is not a JSON object`);
  return value as Record<string, unknown>;
}

const missing = (err: unknown): boolean => (err as NodeJS.ErrnoException).code === 'ENOENT';

/** The dependencies of `<data>/plugins/package.json`, each read from `node_modules/`. */
async function packagePlugins(o: DiscoverOptions, fail: Fail): Promise<DiscoveredPlugin[]> {
  const file = path.join(o.pluginsDir, 'package.json');
  let deps: string[];
  try {
    const pkg = await readJson(file);
    deps = Object.keys((pkg.dependencies ?? {}) as Record<string, unknown>);
  } catch (err) {
    if (missing(err)) return [];
    const p: DiscoveredPlugin = { name: '(plugins package.json)', source: 'package', root: o.pluginsDir, manifest: null, warnings: [], failures: [] };
    fail(p, 'discover', err);
    return [p];
  }
  const out: DiscoveredPlugin[] = [];
  const checked = counter('packages', deps.slice(0, MAX_PLUGINS), o.onProgress);
  for (const dep of deps.slice(0, MAX_PLUGINS)) {
    const p: DiscoveredPlugin = { name: dep, source: 'package', root: path.join(o.pluginsDir, 'node_modules', dep), manifest: null, warnings: [], failures: [] };
    out.push(p);
    try {
      p.root = await fs.realpath(p.root);
      const pkg = await readJson(path.join(p.root, 'package.json'));
      const declared = (pkg.kowalski as { plugin?: unknown } | undefined)?.plugin;
      if (typeof declared !== 'string' || declared === '') {
        throw manifestError(`${path.join(p.root, 'package.json')}: kowalski.plugin: is missing; a kowalski plugin's package.json has "kowalski": {"plugin": "${MANIFEST_FILE}"}`);
      }
      await readPlugin(p, declared, o, fail);
    } catch (err) {
      fail(p, 'discover', missing(err) ? manifestError(`${dep} is listed in ${file} but not installed in ${path.join(o.pluginsDir, 'node_modules')} (run npm install there)`) : err);
    }
    checked(dep);
  }
  return out;
}

/** Every folder under the folder plugins' folder. */
async function folderPlugins(o: DiscoverOptions, fail: Fail): Promise<DiscoveredPlugin[]> {
  let names: string[];
  try {
    names = (await fs.readdir(o.localDir, { withFileTypes: true })).filter((d) => d.isDirectory() || d.isSymbolicLink()).map((d) => d.name).sort();
  } catch (err) {
    if (missing(err)) return [];
    const p: DiscoveredPlugin = { name: '(plugin folder)', source: 'folder', root: o.localDir, manifest: null, warnings: [], failures: [] };
    fail(p, 'discover', err);
    return [p];
  }
  const out: DiscoveredPlugin[] = [];
  const folders = names.filter((n) => !n.startsWith('.')).slice(0, MAX_PLUGINS);
  const checked = counter('folders', folders, o.onProgress);
  for (const name of folders) {
    const p: DiscoveredPlugin = { name, source: 'folder', root: path.join(o.localDir, name), manifest: null, warnings: [], failures: [] };
    out.push(p);
    try {
      p.root = await fs.realpath(p.root);
      await readPlugin(p, MANIFEST_FILE, o, fail);
    } catch (err) {
      fail(p, 'discover', err);
    }
    checked(name);
  }
  return out;
}

/** The manifest (phase validate), then each entry module found inside the folder (phase load). */
async function readPlugin(p: DiscoveredPlugin, manifestPath: string, o: DiscoverOptions, fail: Fail): Promise<void> {
  const file = path.resolve(p.root, manifestPath);
  if (!file.startsWith(`${p.root}${path.sep}`)) throw manifestError(`${manifestPath}: the manifest must be inside the plugin's folder ${p.root}`);
  const text = await readPluginFile(file, MANIFEST_MAX_BYTES).catch((err: unknown) => {
    throw missing(err) ? manifestError(`${file}: no ${MANIFEST_FILE} here (a plugin folder holds one)`) : err;
  });
  try {
    const parsed = parseManifest(text, file, p.root, o.kowalskiVersion);
    p.manifest = parsed.manifest;
    p.name = parsed.manifest.name;
    p.warnings.push(...parsed.warnings);
  } catch (err) {
    fail(p, 'validate', err);
    return;
  }
  for (const entry of [...p.manifest.tools, ...p.manifest.adapters].map((t) => t.entry)) {
    try {
      const real = await fs.realpath(path.join(p.root, entry));
      if (!real.startsWith(`${p.root}${path.sep}`)) throw manifestError(`${entry} leads outside the plugin's folder (to ${real})`);
    } catch (err) {
      fail(p, 'load', missing(err) ? manifestError(`${path.join(p.root, entry)}: the module a [[tools]] entry names does not exist`) : err);
    }
  }
}
