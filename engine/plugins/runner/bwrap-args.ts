/**
 * The bubblewrap command line of a plugin's process: its own network namespace (raw sockets
 * reach nothing: `kowalski.fetch` goes through the engine over IPC), its own PID namespace
 * (it signals nothing of ours), its own IPC and UTS namespaces, no capabilities, killed with
 * its parent; and a file system of only what it needs, in this order (a later mount covers
 * an earlier one):
 *
 * 1. a private /tmp and a minimal /dev;
 * 2. with `exec`, the system's programs and libraries (/usr, /bin, /lib…, /etc), read-only;
 * 3. its granted paths: `fs.read` read-only, then `fs.write` writable (a path that does not
 *    exist when it starts is not there for it);
 * 4. an empty tmpfs over each private folder (kowalski's data folder) that a mount above
 *    holds or lies in: it is never visible, whatever was granted;
 * 5. a new /proc (its own processes only);
 * 6. node and its libraries, the host script and the plugin's folder read-only, its data
 *    folder writable.
 *
 * Node's permission model still runs inside (launch.ts): the two are layers, not choices.
 */
import fs from 'node:fs';
import path from 'node:path';

export interface BwrapLayout {
  /** What node needs to start (sandbox.ts): mounted read-only where they are. */
  system: readonly string[];
  /** Real paths no plugin may see: kowalski's data folder. */
  privateDirs: readonly string[];
  /** Granted paths (absolute), as the manifest wrote them after `~` was expanded. */
  reads: readonly string[];
  writes: readonly string[];
  /** `exec` granted: the system's programs are mounted too. */
  exec: boolean;
  /** The host script, the plugin's folder (read-only) and its data folder (writable); absent in bwrap's trial run. */
  hostScript?: string;
  root?: string;
  dataDir?: string;
}

/** What `exec` adds, read-only, those that exist. */
const EXEC_SYSTEM = ['/usr', '/bin', '/sbin', '/lib', '/lib64', '/lib32', '/libx32', '/etc'];

/** `inner` is `outer` or lies under it. */
export function covers(outer: string, inner: string): boolean {
  const rel = path.relative(outer, inner);
  return rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel));
}

/** The path with its links resolved, or undefined when it does not exist. */
function real(p: string): string | undefined {
  try {
    return fs.realpathSync(p);
  } catch {
    return undefined;
  }
}

/** The namespaces, and everything up to the command (which follows the returned `--`). */
export function bwrapArgs(layout: BwrapLayout): string[] {
  const args = [
    '--unshare-net', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--unshare-cgroup-try',
    '--die-with-parent', '--cap-drop', 'ALL',
    '--tmpfs', '/tmp', '--dev', '/dev',
  ];
  /** Real paths mounted by 2 and 3: what the private folders are checked against. */
  const mounted: string[] = [];
  /** Paths under which the host's files are seen where they are on the host: node's own files need no mount there. */
  const seen: string[] = [];
  if (layout.exec) {
    for (const dir of EXEC_SYSTEM) {
      const r = real(dir);
      if (r === undefined) continue;
      // A merged /usr's /bin → usr/bin stays a link (a mount could not be made through it).
      const link = fs.lstatSync(dir).isSymbolicLink() ? fs.readlinkSync(dir) : undefined;
      args.push(...(link === undefined ? ['--ro-bind', dir, dir] : ['--symlink', link, dir]));
      mounted.push(r);
      seen.push(dir);
    }
  }
  const grants = [...layout.reads.map((p) => ({ p, flag: '--ro-bind' })), ...layout.writes.map((p) => ({ p, flag: '--bind' }))];
  const links: string[] = [];
  for (const { p, flag } of grants) {
    const r = real(p);
    if (r === undefined) continue;
    args.push(flag, r, r);
    mounted.push(r);
    seen.push(r);
    // Granted through a link: the link too, where no mount shows it already (Node checks the path as written).
    if (r !== p) links.push('--symlink', r, p);
  }
  for (let i = 0; i < links.length; i += 3) {
    if (!mounted.some((m) => covers(m, links[i + 2]!))) args.push(...links.slice(i, i + 3));
  }
  for (const dir of layout.privateDirs) {
    if (mounted.some((m) => covers(m, dir) || covers(dir, m))) args.push('--tmpfs', dir);
  }
  args.push('--proc', '/proc');
  for (const file of new Set(layout.system)) if (!seen.some((v) => covers(v, file))) args.push('--ro-bind', file, file);
  if (layout.hostScript !== undefined) args.push('--ro-bind', layout.hostScript, layout.hostScript);
  if (layout.root !== undefined) args.push('--ro-bind', layout.root, layout.root, '--chdir', layout.root);
  if (layout.dataDir !== undefined) args.push('--bind', layout.dataDir, layout.dataDir);
  args.push('--');
  return args;
}
