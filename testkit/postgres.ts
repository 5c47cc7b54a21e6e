/**
 * Throwaway PostgreSQL clusters for the Postgres store's tests (issue 18): a copy of a
 * template cluster in a fresh temp folder, a server on a free loopback port, a database
 * `kowalski`. One cluster serves a test file; freshDatabase gives each test its own
 * database in it. As root (this machine, CI) the server runs as the `postgres` OS user,
 * which refuses root.
 *
 * The template is made by initdb once per PostgreSQL version and server user, and kept in
 * the temp folder (`kw-pg-template-<version>-<key>`) for later runs: copying it costs a
 * fraction of an initdb (issue 37). Remove it to have it made again.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { freePort } from './free-port.js';
import { waitFor } from './wait.js';

export interface Postgres {
  /** postgres://postgres@127.0.0.1:PORT/kowalski (trust authentication: any password is accepted). */
  url: string;
  port: number;
  /** The temp folder: data/ (the cluster), server.log, and the server's Unix socket. */
  dir: string;
  /** Immediate shutdown (SIGQUIT, then SIGKILL after 10 s), then the folder is removed. */
  stop(): Promise<void>;
  /** SIGKILL to the server and its backends at once: a crash, for the tests of a lost connection. stop() still cleans up. */
  kill(): void;
}

const MISSING = "PostgreSQL's server binaries (initdb, postgres) were not found (tried `pg_config --bindir`, /usr/lib/postgresql/*/bin, PATH). `.ci/run` installs Debian's postgresql; locally: apt-get install postgresql";

let bin: string | undefined;

/** The folder holding initdb, postgres and psql (looked for once per process: `pg_config` is a process to start). */
export function postgresBin(): string {
  bin ??= findPostgresBin();
  return bin;
}

function findPostgresBin(): string {
  const has = (dir: string) => fs.existsSync(path.join(dir, 'initdb')) && fs.existsSync(path.join(dir, 'postgres'));
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    if (has(dir)) return dir;
  } catch {
    // no pg_config (or only libpq's): look further
  }
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => /^\d+(\.\d+)?$/.test(v)) : [];
  for (const v of versions.sort((a, b) => Number(b) - Number(a))) if (has(path.join(root, v, 'bin'))) return path.join(root, v, 'bin');
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) if (dir !== '' && has(dir)) return dir;
  throw new Error(MISSING);
}

/** As root, the uid and gid of the `postgres` user the cluster runs as; otherwise nothing (the cluster runs as us). */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error(`running as root, and there is no \`postgres\` user to run the server as. ${MISSING}`);
  }
}

const INITDB_ARGS = ['-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C'];

/** A fresh temp folder the server user owns. */
function ownedTempDir(prefix: string, user: { uid: number; gid: number } | undefined): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  if (user !== undefined) fs.chownSync(dir, user.uid, user.gid);
  return dir;
}

/**
 * The template cluster's data folder, made by initdb at the first call on this machine
 * (for this version of PostgreSQL, these initdb arguments and this server user). It is
 * made in a folder of its own and renamed into place: the rename is atomic, so two test
 * processes that make it at once both succeed (the later rename fails on the folder the
 * earlier one put there, and its copy is removed), and no process ever sees half a cluster.
 */
function templateCluster(bin: string, user: { uid: number; gid: number } | undefined): string {
  const version = execFileSync(path.join(bin, 'postgres'), ['--version'], { encoding: 'utf8' }).trim();
  const number = /\d+(\.\d+)*/.exec(version)?.[0] ?? 'unknown';
  const key = createHash('sha256').update(JSON.stringify([bin, version, INITDB_ARGS, user?.uid ?? process.getuid?.()])).digest('hex').slice(0, 12);
  const template = path.join(os.tmpdir(), `kw-pg-template-${number}-${key}`);
  if (fs.existsSync(path.join(template, 'global', 'pg_control'))) return template;
  const making = ownedTempDir('kw-pg-making-', user);
  try {
    const data = path.join(making, 'data');
    try {
      execFileSync(path.join(bin, 'initdb'), ['-D', data, ...INITDB_ARGS], { ...(user ?? {}), cwd: making, env: { ...process.env, LC_ALL: 'C' }, stdio: 'pipe' });
    } catch (err) {
      throw new Error(`initdb failed: ${String((err as { stderr?: unknown }).stderr ?? err)}`, { cause: err });
    }
    try {
      fs.renameSync(data, template);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err; // another process put its template there first
    }
  } finally {
    fs.rmSync(making, { recursive: true, force: true });
  }
  return template;
}

export async function startPostgres(options: { fsync?: boolean } = {}): Promise<Postgres> {
  const bin = postgresBin();
  const user = serverUser();
  const template = templateCluster(bin, user);
  const dir = ownedTempDir('kw-pg-', user);
  const data = path.join(dir, 'data');
  const log = path.join(dir, 'server.log');
  const as = { ...(user ?? {}), cwd: dir, env: { ...process.env, LC_ALL: 'C' } };
  try {
    // As the server user: the copy is its own, with the modes initdb gave (0700).
    execFileSync('cp', ['-a', template, data], { ...as, stdio: 'pipe' });
  } catch (err) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error(`copying the template cluster ${template} failed: ${String((err as { stderr?: unknown }).stderr ?? err)}`, { cause: err });
  }
  // A free port can be taken between the probe and the bind: a server that exits at once is tried again on another.
  for (let attempt = 1; ; attempt += 1) {
    const port = await freePort();
    const out = fs.openSync(log, 'a');
    const settings = ['listen_addresses=127.0.0.1', `fsync=${options.fsync === true ? 'on' : 'off'}`, 'max_connections=200'];
    const server = spawn(path.join(bin, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, ...settings.flatMap((s) => ['-c', s])], {
      ...as,
      detached: true, // not in the test's process group: a Ctrl-C reaches it only through our clean-up
      stdio: ['ignore', out, out],
    });
    fs.closeSync(out);
    server.unref();
    const exited = once(server, 'exit');
    const pid = server.pid!;
    const url = `postgres://postgres@127.0.0.1:${port}/kowalski`;
    const onExit = () => {
      killCluster(pid); // the test process is going: leave no server behind
      fs.rmSync(dir, { recursive: true, force: true });
    };
    process.on('exit', onExit);
    const running = () => server.exitCode === null && server.signalCode === null;
    const cluster: Postgres = {
      url,
      port,
      dir,
      kill: () => killCluster(pid),
      async stop() {
        process.off('exit', onExit);
        if (running()) {
          signal(pid, 'SIGQUIT'); // immediate shutdown: the postmaster stops its backends and frees its shared memory
          const guard = setTimeout(() => killCluster(pid), 10_000);
          await exited;
          clearTimeout(guard);
        }
        removeSharedMemory(data);
        fs.rmSync(dir, { recursive: true, force: true });
      },
    };
    try {
      await waitFor(async () => !running() || (await createKowalski(port)), `PostgreSQL on port ${port} (log: ${log})`, 30_000);
    } catch (err) {
      await cluster.stop();
      throw err;
    }
    if (running()) return cluster;
    if (attempt === 3) {
      const tail = fs.readFileSync(log, 'utf8').slice(-2000);
      await cluster.stop();
      throw new Error(`PostgreSQL did not start (3 attempts); its log ends:\n${tail}`);
    }
    process.off('exit', onExit);
  }
}

/**
 * SIGKILL to the postmaster and every process it started, as a crash would. Each backend
 * calls setsid(), so a process-group kill would reach the postmaster alone, and a backend
 * could still answer a query before it noticed its postmaster gone. The postmaster is
 * stopped first so that it forks nothing while its children are listed (Linux /proc).
 */
function killCluster(pid: number): void {
  signal(pid, 'SIGSTOP');
  for (const child of childrenOf(pid)) signal(child, 'SIGKILL');
  signal(pid, 'SIGKILL');
}

function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]); // after "(comm) ": state, ppid
      if (ppid === pid) out.push(Number(entry));
    } catch {
      // the process ended while we looked
    }
  }
  return out;
}

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

/** Once the server accepts connections: creates the database `kowalski`. False while it is still starting. */
async function createKowalski(port: number): Promise<boolean> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 2000 });
  client.on('error', () => undefined); // a refused or reset connection is "not yet"
  try {
    await client.connect();
    await client.query('CREATE DATABASE kowalski');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * A server killed with SIGKILL leaves its System V shared memory segment behind (its key
 * and id are on line 7 of postmaster.pid); removing it keeps repeated test runs from
 * piling them up.
 */
function removeSharedMemory(data: string): void {
  try {
    const line = fs.readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[6] ?? '';
    const id = line.trim().split(/\s+/)[1];
    if (id !== undefined && /^\d+$/.test(id)) execFileSync('ipcrm', ['-m', id], { stdio: 'ignore' });
  } catch {
    // no pid file (a clean shutdown removes it) or the segment is already gone
  }
}

function checkDatabaseName(name: string): void {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`database name ${name} is not lowercase letters, digits and _`);
}

/**
 * CREATE DATABASE `name` in the cluster of `url`, returning its URL, without blocking: over a
 * connection of its own (a third of the time of starting psql for it, as freshDatabase does).
 */
export async function createDatabase(url: string, name: string): Promise<string> {
  checkDatabaseName(name);
  const u = new URL(url);
  const client = new pg.Client({ host: u.hostname, port: Number(u.port), user: 'postgres', database: 'postgres' });
  await client.connect();
  try {
    await client.query(`CREATE DATABASE ${name}`);
  } finally {
    await client.end();
  }
  u.pathname = `/${name}`;
  return u.href;
}

/** CREATE DATABASE `name` in the cluster of `url`, returning its URL: one cluster, a database per test. */
export function freshDatabase(url: string, name: string): string {
  checkDatabaseName(name);
  const u = new URL(url);
  execFileSync(path.join(postgresBin(), 'psql'), ['-h', u.hostname, '-p', u.port, '-U', 'postgres', '-d', 'postgres', '-v', 'ON_ERROR_STOP=1', '-q', '-c', `CREATE DATABASE ${name}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  u.pathname = `/${name}`;
  return u.href;
}
