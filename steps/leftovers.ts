/**
 * Finding and killing what a step left running. Every process a step starts carries
 * `KOWALSKI_STEP_TOKEN=<token>` in its environment; scanning `/proc/<pid>/environ` for
 * it is robust against pid reuse and finds processes that left the process group.
 */
import fs from 'node:fs';
import { killGroup } from './kill-group.js';

const TOKEN_VAR = 'KOWALSKI_STEP_TOKEN=';

function procAvailable(procDir: string): boolean {
  try {
    return fs.statSync(`${procDir}/self/environ`).isFile();
  } catch {
    return false;
  }
}

/** The state letter of `/proc/<pid>/stat` (`R`, `S`, `Z`…), or undefined when the process is gone. */
function procState(procDir: string, pid: number): string | undefined {
  try {
    const stat = fs.readFileSync(`${procDir}/${pid}/stat`, 'utf8');
    // `pid (comm) S …`: comm may hold spaces and parentheses, so read after the last `)`.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) || undefined;
  } catch {
    return undefined;
  }
}

/** True while the process exists and is not a zombie. */
export function isAlive(pid: number, procDir = '/proc'): boolean {
  if (!procAvailable(procDir)) {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
  const state = procState(procDir, pid);
  return state !== undefined && state !== 'Z' && state !== 'X';
}

/** Pids of the live processes (other than this one) whose environment holds the token. */
export function findTokenProcesses(token: string, procDir = '/proc'): number[] {
  const needle = TOKEN_VAR + token;
  const found: number[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync(procDir);
  } catch {
    return found;
  }
  for (const entry of entries) {
    const c = entry.charCodeAt(0);
    if (c < 48 || c > 57) continue;
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid) continue;
    let environ: string;
    try {
      environ = fs.readFileSync(`${procDir}/${entry}/environ`, 'latin1');
    } catch {
      continue; // gone, or not ours to read
    }
    if (environ.length === 0) continue; // a zombie or a kernel thread
    if (environ.split('\0').includes(needle)) found.push(pid);
  }
  return found;
}

/** Bounded wait (polling every few ms) until `done()` holds; returns whether it did. */
async function waitFor(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  let delay = 2;
  while (!done()) {
    if (Date.now() >= deadline) return false;
    await new Promise<void>((resolve) => setTimeout(resolve, delay));
    delay = Math.min(delay * 2, 50);
  }
  return true;
}

export interface KillLeftoversOptions {
  /** The process group the step's command ran in, if known. */
  pgid?: number;
  /** The step's KOWALSKI_STEP_TOKEN. */
  token: string;
  /** How long to wait for the killed processes to be gone, ms (default 2000). */
  waitMs?: number;
  /** For tests: where proc lives (default `/proc`). */
  procDir?: string;
}

/**
 * SIGKILL every process holding the step's token (and the process group, if given),
 * then wait until they are gone. Returns how many processes were killed; without
 * `/proc` it can only signal the group, and returns 1 when that group existed.
 */
export async function killLeftovers(options: KillLeftoversOptions): Promise<number> {
  const procDir = options.procDir ?? '/proc';
  const waitMs = options.waitMs ?? 2000;
  if (!procAvailable(procDir)) {
    const pgid = options.pgid;
    if (pgid === undefined || !killGroup(pgid, 'SIGKILL')) return 0;
    await waitFor(() => !killGroup(pgid, 0), waitMs);
    return 1;
  }
  // Several rounds: a process may fork between the scan and the kill.
  const killed = new Set<number>();
  for (let round = 0; round < 5; round += 1) {
    const pids = findTokenProcesses(options.token, procDir);
    if (round > 0 && pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
        killed.add(pid);
      } catch {
        // already gone
      }
    }
    if (round === 0 && options.pgid !== undefined) killGroup(options.pgid, 'SIGKILL');
    await waitFor(() => pids.every((pid) => !isAlive(pid, procDir)), waitMs);
  }
  return killed.size;
}

/** Bounded wait until no live process holds the token. Returns whether none is left. */
export async function waitUntilNoneLeft(token: string, timeoutMs: number, procDir = '/proc'): Promise<boolean> {
  if (!procAvailable(procDir)) return true;
  return waitFor(() => findTokenProcesses(token, procDir).length === 0, timeoutMs);
}
