/**
 * How a plugin's process is started: `node` with the permission model on, reading only
 * the host script, the plugin's folder, its data folder and its granted paths, writing
 * only its data folder and its granted write paths, no child processes, workers or
 * native addons unless `exec` is granted, and an environment of its granted variables
 * alone — inside bubblewrap where the machine has it (bwrap-args.ts: its own network and
 * PID namespaces, only those paths mounted, kowalski's data folder hidden). Before it
 * starts, its folder is searched for symbolic links that lead out of it (Node 20 follows
 * them past its read grants), and a grant that would show it kowalski's data folder is
 * refused where nothing can hide it (no bubblewrap).
 */
import { spawn } from 'node:child_process';
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { KowalskiError } from '../../../core/index.js';
import { packageRoot } from '../../base/modules.js';
import type { PluginPermissions } from '../types.js';
import { bwrapArgs, covers } from './bwrap-args.js';
import type { Sandbox } from './sandbox.js';

export interface LaunchSpec {
  name: string;
  /** The plugin's folder: absolute, a real path. */
  root: string;
  /** Its data folder (made if missing): the one place it may write without a grant. */
  dataDir: string;
  permissions: PluginPermissions;
  /** How it is confined (sandbox.ts). */
  sandbox: Sandbox;
  /** Folders no plugin may see, whatever it was granted: kowalski's data folder. */
  privateDirs: readonly string[];
}

/** The entries of a plugin's folder searched for links at each start; a folder with more is refused. */
const MAX_FOLDER_ENTRIES = 100_000;

/** The child's main module: plain JavaScript, the same file from the sources and from dist/. */
export function hostScript(): string {
  return path.join(packageRoot(import.meta.url), 'engine', 'plugins', 'runner', 'plugin-host.mjs');
}

/** A path handed to `--allow-fs-*`: absolute, and no `*` (which Node reads as a wildcard). */
function grantPath(name: string, key: string, p: string): string {
  if (!path.isAbsolute(p) || p.includes('*') || p.includes('\0')) {
    throw new KowalskiError('KW_ERR_PLUGIN_START', `plugin ${name}: ${key} path ${JSON.stringify(p)} must be absolute and hold no *`);
  }
  return path.resolve(p);
}

/** Node's flags for this plugin's process. */
export function permissionArgs(spec: LaunchSpec): string[] {
  const reads = [hostScript(), spec.root, spec.dataDir, ...spec.permissions.fsRead.map((p) => grantPath(spec.name, 'fs.read', p))];
  const writes = [spec.dataDir, ...spec.permissions.fsWrite.map((p) => grantPath(spec.name, 'fs.write', p))];
  const args = ['--experimental-permission', '--disable-warning=ExperimentalWarning'];
  // Node 20.20 takes one path per flag (a comma-separated list is refused). What may be written may be read.
  for (const p of new Set([...reads, ...writes])) args.push(`--allow-fs-read=${p}`);
  for (const p of new Set(writes)) args.push(`--allow-fs-write=${p}`);
  if (spec.permissions.exec) args.push('--allow-child-process', '--allow-worker');
  else args.push('--no-addons');
  return args;
}

/** Only the granted variables that are set; never a `NODE_*` one (NODE_OPTIONS could change how the process starts). */
export function pluginEnv(names: readonly string[], from: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of names) {
    const value = from[name];
    if (value !== undefined && !name.toUpperCase().startsWith('NODE_')) env[name] = value;
  }
  return env;
}

/** Throws KW_ERR_PLUGIN_START when the folder holds a symbolic link that resolves outside it, or too many entries to search. */
export async function checkFolder(spec: Pick<LaunchSpec, 'name' | 'root'>): Promise<void> {
  let seen = 0;
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await fs.promises.readdir(dir, { withFileTypes: true })) {
      if (++seen > MAX_FOLDER_ENTRIES) {
        throw new KowalskiError('KW_ERR_PLUGIN_START', `plugin ${spec.name}: its folder ${spec.root} holds more than ${MAX_FOLDER_ENTRIES} entries; it is not searched for links and not started`);
      }
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        await walk(full);
      } else if (entry.isSymbolicLink()) {
        const target = await fs.promises.realpath(full).catch(async () => path.resolve(dir, await fs.promises.readlink(full)));
        if (!covers(spec.root, target)) {
          throw new KowalskiError('KW_ERR_PLUGIN_START', `plugin ${spec.name}: ${full} is a link to ${target}, outside the plugin's folder; Node would follow it past the plugin's grants, so the plugin is not started`);
        }
      }
    }
  };
  await walk(spec.root);
}

function realOr(p: string): string {
  try {
    return fs.realpathSync(p);
  } catch {
    return path.resolve(p);
  }
}

/**
 * Throws KW_ERR_PLUGIN_START when the plugin would see a private folder (kowalski's data folder):
 * its own folder or its data folder holds one (nothing could hide it then); a granted path lies
 * in one (it could only be hidden, so it would be granted for nothing); or, without bubblewrap, a
 * granted path holds one (with bubblewrap a tmpfs hides it: bwrap-args.ts).
 */
export function checkPrivate(spec: Pick<LaunchSpec, 'name' | 'root' | 'dataDir' | 'permissions' | 'sandbox' | 'privateDirs'>): void {
  const privates = spec.privateDirs.map(realOr);
  const refuse = (message: string): never => {
    throw new KowalskiError('KW_ERR_PLUGIN_START', `plugin ${spec.name}: ${message}; it is not started`);
  };
  for (const [what, p] of [['its folder', spec.root], ['its data folder', spec.dataDir]] as const) {
    const dir = privates.find((d) => covers(realOr(p), d));
    if (dir !== undefined) refuse(`${what} ${p} holds kowalski's data folder ${dir}, which no plugin may see`);
  }
  const grants = [...spec.permissions.fsRead.map((p) => ['fs.read', p] as const), ...spec.permissions.fsWrite.map((p) => ['fs.write', p] as const)];
  for (const [key, p] of grants) {
    const r = realOr(p);
    const inside = privates.find((d) => covers(d, r));
    if (inside !== undefined) refuse(`its ${key} path ${p} lies in kowalski's data folder ${inside}, which no plugin may see`);
    const holds = privates.find((d) => covers(r, d));
    if (holds !== undefined && spec.sandbox.kind === 'node') {
      refuse(`its ${key} path ${p} holds kowalski's data folder ${holds} (its API token, config and database), and without bubblewrap nothing hides that from the plugin (${spec.sandbox.reason}): install bubblewrap (apt-get install bubblewrap), or grant it a narrower path`);
    }
  }
}

/** Start the plugin's process (under bwrap where there is one) in a process group of its own, so a kill takes whatever it started too. */
export function launchPlugin(spec: LaunchSpec): ChildProcess {
  const node = [...permissionArgs(spec), hostScript()];
  const options: SpawnOptions = { cwd: spec.root, env: pluginEnv(spec.permissions.env, process.env), detached: true, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] };
  const { sandbox } = spec;
  if (sandbox.kind === 'node') return spawn(process.execPath, node, options);
  const layout = {
    system: sandbox.system,
    privateDirs: spec.privateDirs.map(realOr),
    reads: spec.permissions.fsRead,
    writes: spec.permissions.fsWrite,
    exec: spec.permissions.exec,
    hostScript: hostScript(),
    root: spec.root,
    dataDir: spec.dataDir,
  };
  return spawn(sandbox.bwrap, [...bwrapArgs(layout), process.execPath, ...node], options);
}
