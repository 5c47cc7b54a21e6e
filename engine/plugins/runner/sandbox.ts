/**
 * Which confinement plugins' processes get on this machine: bubblewrap (`bwrap`, Debian's
 * `bubblewrap`) where it is installed and works — each plugin in its own network, PID, IPC
 * and UTS namespaces with only its paths mounted (bwrap-args.ts) — else Node's permission
 * model alone. Found by trying: bwrap is run once with the same layout a plugin gets, around
 * `node -e 0`; a bwrap that cannot do that here (no user namespaces, a seccomp policy…) is
 * reported with its own words, and plugins fall back to Node's permission model. The
 * PluginService finds it once, on first need; `kowalski doctor` says which.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { bwrapArgs } from './bwrap-args.js';
import { messageOf } from '../../../core/index.js';

/**
 * How plugins' processes are confined here. `system`: the files node needs to start (itself and its
 * libraries), mounted read-only. Without bwrap, `cause` says why: `absent` (not installed), `failed`
 * (its trial run failed: `reason` gives its words), `off` (turned off by the engine's options).
 */
export type Sandbox =
  | { kind: 'bwrap'; bwrap: string; system: string[] }
  | { kind: 'node'; cause: 'absent' | 'failed' | 'off'; reason: string };

export interface SandboxOptions {
  /**
   * The bwrap program. Default: `bwrap` on PATH, else /usr/bin/bwrap. `null`: none — plugins are
   * confined by Node's permission model only (the tests of that path; never set otherwise).
   */
  bwrap?: string | null;
  /** Where PATH is read (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** The node that runs plugins (default process.execPath). */
  node?: string;
}

/** Longest wait for bwrap's trial run, ms. */
const PROBE_TIMEOUT_MS = 10_000;
/** Where the libraries are when ldd cannot say (mounted read-only, those that exist). */
const LIBRARY_DIRS = ['/lib', '/lib64', '/lib32', '/libx32', '/usr/lib', '/usr/lib64', '/usr/lib32', '/usr/libx32'];

function executable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** The bwrap on PATH (absolute entries only), else /usr/bin/bwrap; undefined when there is none. */
export function findBwrap(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const dirs = (env.PATH ?? '').split(path.delimiter).filter((d) => path.isAbsolute(d));
  return [...dirs, '/usr/bin'].map((d) => path.join(d, 'bwrap')).find(executable);
}

function run(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ ok: boolean; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(file, args, { env, timeout: PROBE_TIMEOUT_MS, maxBuffer: 1024 * 1024, killSignal: 'SIGKILL' }, (err, stdout, stderr) => {
      resolve({ ok: err === null, stdout, stderr: stderr || (err?.message ?? '') });
    });
  });
}

/** The files `node` needs to start: itself and the shared libraries ldd lists (or, when ldd cannot say, the library folders). */
async function nodeFiles(node: string, env: NodeJS.ProcessEnv): Promise<string[]> {
  const files = new Set([node, fs.realpathSync(node)]);
  const ldd = await run('ldd', [node], { PATH: env.PATH ?? '/usr/bin:/bin' });
  if (/not a dynamic executable/.test(ldd.stderr + ldd.stdout)) return [...files];
  if (!ldd.ok) return [...files, ...LIBRARY_DIRS.filter((d) => fs.existsSync(d))];
  for (const line of ldd.stdout.split('\n')) {
    const lib = /(?:=>\s*)?(\/\S+)\s+\(0x[0-9a-f]+\)/.exec(line)?.[1];
    if (lib !== undefined) files.add(lib);
  }
  if (fs.existsSync('/etc/ld.so.cache')) files.add('/etc/ld.so.cache');
  return [...files];
}

/** Find out how plugins can be confined here (bwrap tried once; a few hundred ms). Never rejects. */
export async function detectSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  try {
    return await tryBwrap(options);
  } catch (err) {
    return { kind: 'node', cause: 'failed', reason: `bubblewrap could not be tried: ${messageOf(err)}` };
  }
}

async function tryBwrap(options: SandboxOptions): Promise<Sandbox> {
  const env = options.env ?? process.env;
  if (options.bwrap === null) return { kind: 'node', cause: 'off', reason: 'bubblewrap is turned off for this engine' };
  const bwrap = options.bwrap ?? findBwrap(env);
  if (bwrap === undefined) return { kind: 'node', cause: 'absent', reason: 'bubblewrap (bwrap) is not installed' };
  if (!executable(bwrap)) return { kind: 'node', cause: 'absent', reason: `bubblewrap is not at ${bwrap}` };
  const node = options.node ?? process.execPath;
  const system = await nodeFiles(node, env);
  const trial = await run(bwrap, [...bwrapArgs({ system, privateDirs: [], reads: [], writes: [], exec: false }), node, '-e', '0'], {});
  if (!trial.ok) {
    const said = trial.stderr.trim().split('\n')[0] ?? '';
    return { kind: 'node', cause: 'failed', reason: `bubblewrap (${bwrap}) does not work here: ${said === '' ? 'it failed without a word' : said}` };
  }
  return { kind: 'bwrap', bwrap, system };
}
