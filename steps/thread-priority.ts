/**
 * Pool threads run below the engine's thread. The engine's one thread is what every run
 * waits on (commits, dispatch, the operator's answers); on a small machine a pool thread
 * that competes with it for a core at the same priority slows every run, while the steps
 * themselves mostly wait. On Linux a thread's nice value is its own (setpriority on its
 * thread id), so only the step threads are lowered; elsewhere this does nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** How far below the engine a pool thread runs: when both want a core, the engine's thread gets most of it; with a core free, a step runs at full speed. */
export const STEP_THREAD_NICE = 10;

/** The nice value of the calling thread on Linux (from `/proc/thread-self/stat`), or undefined elsewhere. */
export function threadNice(): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const stat = fs.readFileSync('/proc/thread-self/stat', 'utf8');
    // After the command name (in parentheses, which may hold spaces): state is field 3, nice field 19.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  } catch {
    return undefined;
  }
}

/** Lower the calling thread (never a process's main thread) by `by`, up to 19; the nice value it now has, or undefined where that cannot be done. */
export function lowerThisThread(by: number): number | undefined {
  if (process.platform !== 'linux') return undefined;
  try {
    const tid = Number(path.basename(fs.readlinkSync('/proc/thread-self')));
    if (!Number.isInteger(tid) || tid <= 0 || tid === process.pid) return undefined;
    const nice = Math.min(19, os.getPriority(tid) + by);
    os.setPriority(tid, nice);
    return nice;
  } catch {
    return undefined; // no /proc, or not allowed: the thread keeps the engine's priority
  }
}
