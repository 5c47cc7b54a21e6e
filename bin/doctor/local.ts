/** The checks of this machine: Node, the data folder and its modes, the database, free disk, the port. */
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SECRET_FILES, SECRET_FOLDERS, dataPaths, liveServerOf } from '../../engine/index.js';
import { fail, ok, reason, warn } from './check.js';
import type { Check } from './check.js';

/** The oldest Node kowalski runs on (package.json `engines`). */
export const MIN_NODE = '20.19';

export function checkNode(version: string = process.versions.node, min: string = MIN_NODE): Check {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  const [wantMajor = 0, wantMinor = 0] = min.split('.').map(Number);
  if (major > wantMajor || (major === wantMajor && minor >= wantMinor)) return ok('node', `Node ${version}`);
  return fail('node', `Node ${version} is older than ${min}, the oldest kowalski runs on`, `install Node ${min} or newer (e.g. \`nvm install 22\`), then run kowalski with it`);
}

const octal = (mode: number): string => `0${(mode & 0o777).toString(8).padStart(3, '0')}`;

export function checkDataDir(dir: string): Check[] {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch {
    return [warn('data folder', `${dir} does not exist yet`, 'nothing to do: it is made (owner-only) at the first `kowalski serve` or `run`; set KOWALSKI_HOME to keep it elsewhere')];
  }
  if (!stat.isDirectory()) return [fail('data folder', `${dir} is not a folder`, `move the file ${dir} aside, or point KOWALSKI_HOME at a folder`)];
  let denied: string | undefined;
  try {
    fs.accessSync(dir, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK);
  } catch (err) {
    denied = reason(err);
  }
  if (denied !== undefined || (stat.mode & 0o700) !== 0o700) {
    return [fail('data folder', `${dir} (mode ${octal(stat.mode)}) is not readable, writable and searchable by its owner${denied === undefined ? '' : ` (${denied})`}`, `chmod 700 ${dir}${process.getuid?.() === stat.uid ? '' : ` (and chown it to the user who runs kowalski)`}`)];
  }
  const out: Check[] = [(stat.mode & 0o077) === 0
    ? ok('data folder', `${dir} (mode ${octal(stat.mode)})`)
    : warn('data folder', `${dir} is open to other users (mode ${octal(stat.mode)}): it holds run outputs, chats and the database`, `chmod 700 ${dir}`)];
  for (const name of ['config.toml', ...SECRET_FILES]) {
    const file = path.join(dir, name);
    const mode = fs.existsSync(file) ? fs.statSync(file).mode : undefined;
    if (mode !== undefined && (mode & 0o077) !== 0) out.push(warn('file modes', `${file} may hold keys and is readable by others (mode ${octal(mode)})`, `chmod 600 ${file}`));
  }
  for (const name of SECRET_FOLDERS) {
    const folder = path.join(dir, name);
    const mode = fs.existsSync(folder) ? fs.statSync(folder).mode : undefined;
    if (mode !== undefined && (mode & 0o077) !== 0) out.push(warn('file modes', `${folder} holds sign-ins (MCP servers' tokens) and is open to others (mode ${octal(mode)})`, `chmod -R go-rwx ${folder}`));
  }
  return out;
}

export function checkDatabase(dir: string): Check {
  const file = dataPaths(dir).database;
  if (!fs.existsSync(file)) return ok('database', `no database yet (${file} is made at the first start)`);
  let verdict: string;
  try {
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      verdict = (db.pragma('quick_check', { simple: true }) as string | undefined) ?? 'no answer';
    } finally {
      db.close();
    }
  } catch (err) {
    verdict = reason(err);
  }
  if (verdict === 'ok') return ok('database', `${file}: quick_check ok`);
  return fail('database', `${file} is damaged: ${verdict}`, `stop kowalski, copy the data folder somewhere safe, then \`sqlite3 ${file} ".recover" | sqlite3 recovered.sqlite\` and put recovered.sqlite in its place (or restore a backup: kowalski restore <file> --to <dir>)`);
}

export interface DiskLimits {
  /** Below this many free bytes: warn (default 1 GiB). */
  warnBytes: number;
  /** Below this: fail (default 200 MiB). */
  failBytes: number;
}
export const DISK_LIMITS: DiskLimits = { warnBytes: 1024 ** 3, failBytes: 200 * 1024 ** 2 };

export function checkDisk(dir: string, limits: DiskLimits = DISK_LIMITS): Check {
  let at = path.resolve(dir);
  while (!fs.existsSync(at) && path.dirname(at) !== at) at = path.dirname(at);
  const s = fs.statfsSync(at);
  const free = s.bavail * s.bsize;
  const gib = (n: number): string => `${(n / 1024 ** 3).toFixed(2)} GiB`;
  if (free < limits.failBytes) return fail('free disk', `${gib(free)} free on the disk of ${at}`, `free some space there (old run folders: ${dataPaths(dir).runs}), or move KOWALSKI_HOME to a bigger disk`);
  if (free < limits.warnBytes) return warn('free disk', `only ${gib(free)} free on the disk of ${at}`, 'free some space: runs and the database grow');
  return ok('free disk', `${gib(free)} free`);
}

/** `host:port` for `kowalski serve` of data folder `dir`: free, this folder's own server, another folder's server, or another program. */
export async function checkPort(host: string, port: number, dir: string): Promise<Check> {
  const free = await new Promise<boolean | string>((resolve) => {
    const server = net.createServer();
    server.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'EADDRINUSE' ? false : reason(err)));
    server.listen(port, host, () => server.close(() => resolve(true)));
  });
  if (free === true) return ok('port', `${host}:${port} is free for kowalski serve`);
  if (typeof free === 'string') return fail('port', `${host}:${port} cannot be used: ${free}`, 'pick another with `kowalski serve --port <n>` (or --host)');
  try {
    const res = await fetch(`http://${host.includes(':') ? `[${host}]` : host}:${port}/api/health`, { signal: AbortSignal.timeout(2000) });
    const body = (await res.json().catch(() => undefined)) as { ok?: boolean; pid?: number; error?: { code?: string } } | undefined;
    // Without the token a kowalski server answers 401 in its own shape: still a kowalski server.
    if ((res.ok && body?.ok === true) || (res.status === 401 && body?.error?.code === 'KW_ERR_UNAUTHORIZED')) {
      const own = liveServerOf(dir, port);
      if (own !== undefined) return ok('port', `${host}:${port} is held by this data folder's kowalski server (process ${own.pid})`);
      return fail('port', `${host}:${port} is held by the kowalski server of another data folder, not ${dir}`,
        `serve this data folder on another port (kowalski serve --port ${port + 1}), or stop that server first`);
    }
  } catch {
    // not a kowalski server: below
  }
  return fail('port', `${host}:${port} is taken by another program`, `stop that program, or serve on another port: kowalski serve --port ${port + 1}`);
}
