/**
 * The one rule every file tool obeys: a path the model wrote names something inside its
 * root — the tools folder chosen in Setup, or (for a 1.x `fs_tool` step) the run's
 * project folder — and never kowalski's own data directory.
 *
 * The root is resolved (`~/` expanded, realpath taken) at every call, not once when the
 * tools are created: Setup may name a folder that does not exist yet, and a chat session
 * outlives the moment the operator creates or moves it. One realpath per call costs
 * nothing next to a model turn.
 *
 * Below the root, each segment is lstat'ed and every symlink met is resolved and checked,
 * so a link pointing out — to a file, a folder, or to nothing — is refused wherever it
 * sits on the path, including in the part write_file is about to create. A local process
 * racing the model can still swap a folder for a link between this check and the open;
 * closing that gap needs openat2(RESOLVE_BENEATH), which Node does not offer.
 */
import type { Stats } from 'node:fs';
import { lstat, mkdir, realpath, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { KowalskiError } from '../../core/index.js';

export interface FileToolOptions {
  /** `[tools] root` from config.toml (or a run's project folder): an absolute folder or `~/…`; null = not chosen in Setup. */
  root: string | null;
  /** kowalski's data directory: refused, with everything in it, even when it lies inside the root. Absent: nothing is refused beyond the root (a run's own workdir as the root). */
  dataDir?: string;
  /** How messages and tool descriptions name the root (default "tools folder"). */
  rootName?: string;
  /** 1.x `fs_tool`: an absolute path that lies inside the root is taken as the path below it (default false: absolute paths are refused). */
  absoluteInside?: boolean;
  /** The first write creates a missing root (default true: the tools folder chosen in Setup; false for a run's project folder, which is the operator's). */
  createRoot?: boolean;
  /** Bytes read_file returns per call (default 262 144 = 256 KiB). */
  maxReadBytes?: number;
  /** Bytes write_file accepts per call (default 1 048 576 = 1 MiB). */
  maxWriteBytes?: number;
}

export type FileAccess = 'read' | 'write';

export interface ToolPath {
  /** The path as the model wrote it, for messages. */
  input: string;
  /** The real absolute path: existing parts resolved, the missing tail (write only) appended. */
  real: string;
  /** `stat` of `real` (symlinks followed and checked), or null when it does not exist yet. */
  stat: Stats | null;
}

const enoent = (err: unknown): boolean => ['ENOENT', 'ENOTDIR'].includes((err as NodeJS.ErrnoException).code ?? '');

function outside(input: string, why: string): KowalskiError {
  return new KowalskiError('KW_ERR_FILE_OUTSIDE_ROOT', `${JSON.stringify(input)}: ${why}`);
}

function within(parent: string, child: string): boolean {
  const rel = path.relative(parent, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/** realpath of the deepest part that exists, with the rest appended. */
async function realDeep(p: string): Promise<string> {
  try {
    return await realpath(p);
  } catch (err) {
    const parent = path.dirname(p);
    if (!enoent(err) || parent === p) throw err;
    return path.join(await realDeep(parent), path.basename(p));
  }
}

/** `~/x` → `<home>/x`: the only form besides an absolute path that Setup writes. */
export function expandHome(p: string, home: string = os.homedir()): string {
  return p === '~' || p.startsWith('~/') ? path.join(home, p.slice(1)) : p;
}

/**
 * The segments below the root; refuses what can never name something inside it. `inside`
 * is the root's written and real absolute forms when an absolute path inside it is taken
 * (1.x `fs_tool`), else empty.
 */
function segmentsOf(input: string, rootName: string, inside: readonly string[]): string[] {
  if (input.includes('\0')) {
    throw new KowalskiError('KW_ERR_TOOL_ARGS', `${JSON.stringify(input)}: a path may not contain NUL bytes; write the file name as plain text`);
  }
  let rel = input;
  if (path.isAbsolute(input)) {
    const base = inside.find((r) => within(r, path.resolve(input)));
    if (base === undefined) {
      throw outside(input, `absolute paths are refused; write the path relative to the ${rootName}, e.g. "notes/todo.md" (use list_dir "." to see the folder)`);
    }
    rel = path.relative(base, path.resolve(input));
  }
  const segments = rel.split(path.sep === '\\' ? /[\\/]/ : '/').filter((s) => s !== '' && s !== '.');
  if (segments[0] === '~') {
    throw outside(input, `"~" is not the home folder here: paths are relative to the ${rootName}; drop the "~/"`);
  }
  if (segments.includes('..')) {
    throw outside(input, `".." is refused: paths stay inside the ${rootName}; write the path from its top, e.g. "reports/q3.csv"`);
  }
  return segments;
}

async function realRoot(root: string | null, access: FileAccess, rootName: string, create: boolean): Promise<string> {
  if (root === null || root === '') {
    throw new KowalskiError('KW_ERR_FILE_ROOT_UNSET', 'no tools folder is chosen: choose a tools folder in Setup ([tools] root in config.toml)');
  }
  const expanded = expandHome(root);
  if (!path.isAbsolute(expanded)) {
    throw new KowalskiError('KW_ERR_FILE_ROOT_UNSET', `the tools folder ${JSON.stringify(root)} is not absolute: choose a tools folder in Setup ([tools] root in config.toml)`);
  }
  try {
    return await realpath(expanded);
  } catch (err) {
    if (!enoent(err)) throw err;
    if (!create) throw new KowalskiError('KW_ERR_FILE_NOT_FOUND', `the ${rootName} ${JSON.stringify(root)} does not exist`);
    if (access === 'read') throw new KowalskiError('KW_ERR_FILE_NOT_FOUND', `the ${rootName} is empty: it does not exist until write_file creates the first file`);
    // The operator chose this folder in Setup; the first write brings it into being.
    await mkdir(expanded, { recursive: true });
    return realpath(expanded);
  }
}

/**
 * Map a path the model wrote (relative to the tools folder) to the real path it names.
 * Refuses (KW_ERR_FILE_OUTSIDE_ROOT) absolute paths, `..`, symlinks leading out of the
 * root, and the data directory; `read` also refuses what does not exist
 * (KW_ERR_FILE_NOT_FOUND); `write` refuses a final symlink and creates a missing root.
 */
export async function resolveToolPath(options: Pick<FileToolOptions, 'root' | 'dataDir' | 'rootName' | 'absoluteInside' | 'createRoot'>, input: string, access: FileAccess): Promise<ToolPath> {
  const rootName = options.rootName ?? 'tools folder';
  const early = options.absoluteInside === true ? undefined : segmentsOf(input, rootName, []);
  const root = await realRoot(options.root, access, rootName, options.createRoot ?? true);
  const segments = early ?? segmentsOf(input, rootName, [path.resolve(expandHome(options.root ?? root)), root]);
  const dataDir = options.dataDir === undefined ? undefined : await realDeep(path.resolve(expandHome(options.dataDir)));
  const refuseData = (p: string): void => {
    if (dataDir !== undefined && within(dataDir, p)) throw outside(input, "this is kowalski's own data folder, which file tools never touch; use another folder");
  };
  refuseData(root);
  let cur = root;
  let st: Stats | null = await stat(root);
  let i = 0;
  for (; i < segments.length; i++) {
    const shown = segments.slice(0, i).join('/');
    if (!st.isDirectory()) throw new KowalskiError('KW_ERR_FILE_NOT_FOUND', `${JSON.stringify(input)}: ${JSON.stringify(shown)} is a file, not a folder`);
    const next = path.join(cur, segments[i]!);
    let link: Stats;
    try {
      link = await lstat(next);
    } catch (err) {
      if (!enoent(err)) throw err;
      st = null;
      break;
    }
    if (link.isSymbolicLink()) {
      const where = segments.slice(0, i + 1).join('/');
      if (access === 'write' && i === segments.length - 1) {
        throw outside(input, 'this is a symlink, and write_file never writes through one; write to another name');
      }
      let target: string;
      try {
        target = await realpath(next);
      } catch {
        throw outside(input, `${JSON.stringify(where)} is a symlink to something that does not exist; use another path`);
      }
      if (!within(root, target)) throw outside(input, `${JSON.stringify(where)} is a symlink leading out of the ${rootName}; use a path that stays inside it`);
      cur = target;
      st = await stat(target);
    } else {
      cur = next;
      st = link;
    }
    refuseData(cur);
  }
  if (st === null && access === 'read') {
    const parent = segments.slice(0, i).join('/') || '.';
    throw new KowalskiError('KW_ERR_FILE_NOT_FOUND', `${JSON.stringify(input)} does not exist; list_dir ${JSON.stringify(parent)} shows what is there`);
  }
  const real = path.join(cur, ...segments.slice(i));
  refuseData(real);
  return { input, real, stat: st };
}
