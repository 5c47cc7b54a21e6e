/**
 * Running one command for a step: in its own process group, behind a gate that holds
 * it until the engine has durably recorded the group, with bounded output capture,
 * a kill of the whole group on abort, and a sentinel that kills the group when the
 * process that started it dies.
 */
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import fs from 'node:fs';
import { KowalskiError } from '../core/index.js';
import { BoundedCapture } from './capture.js';
import type { CapturedOutput } from './capture.js';
import { killGroup } from './kill-group.js';
import type { CommandSpec } from './protocol.js';

/**
 * The gate: waits for one line `go` on stdin, then becomes the command. If stdin ends
 * first (the engine died before recording the process group), it exits 125 and the
 * command never starts.
 *
 * First it leaves a sentinel in its group: a shell that blocks reading fd 3, a socket
 * whose other end only the spawning process holds (the engine's spawn helper for a pool
 * thread's step, see spawner-main.ts; an isolated step's child; Node opens it
 * close-on-exec, so no other child inherits it). When that process dies — SIGKILL included — the kernel
 * closes its end, the read returns, and the sentinel SIGKILLs the group (`-$$`: the
 * gate's own group, which exists only because exec.ts spawns it detached), so nothing
 * of the command outlives its engine (or its isolated step child). The sentinel is
 * double-forked (not a child of the command, which may wait for all its children),
 * holds none of the command's pipes, is forked while the engine records the group (off
 * the start's critical path), and dies with the group when the command ends normally
 * (exec.ts kills the group then). The command itself runs without fd 3.
 */
export const GATE_SCRIPT = gate([3]);
/**
 * The gate when the process that spawns is not the engine itself (the spawn helper, an
 * isolated step's child): a second sentinel reads fd 4, the lifeline, whose other end
 * only the engine holds. The kernel closes that end while the engine is still dying,
 * before anyone can see it exit, so the group is killed then rather than after the
 * spawning process has noticed the engine's death and died in turn.
 */
export const GATE_SCRIPT_WITH_LIFELINE = gate([3, 4]);

/**
 * The gate with one sentinel per fd of `fds` (each a double-forked shell that SIGKILLs
 * the gate's group when a read of its fd ends); the command runs without those fds.
 */
function gate(fds: readonly (3 | 4)[]): string {
  const sentinels = fds.map((fd) => `( (cd / && read -r kw_eof <&${fd}; kill -s KILL -- -$$) </dev/null >/dev/null 2>&1 & ); `).join('');
  return `${sentinels}IFS= read -r kw_go && [ "$kw_go" = go ] || exit 125; exec "$@" ${fds.map((fd) => `${fd}<&-`).join(' ')}`;
}
/** The exit status of a gate that never got `go`. */
export const GATE_CLOSED_EXIT = 125;

export interface ExecOptions {
  /** The command's whole environment (see `commandEnv`). */
  env: Record<string, string>;
  /** Abort = SIGTERM to the group, SIGKILL after `killGraceMs`. */
  signal: AbortSignal;
  /** Called with the process group once it exists; the command starts only after this resolves. */
  spawned(pgid: number): Promise<void>;
  /** Max bytes kept per stream (head + tail). */
  outputBytes: number;
  /** Between SIGTERM and SIGKILL on abort, ms (default 1500, at most 2000). */
  killGraceMs?: number;
  /** After the leader exits, how long to wait for pipes still held open by strays, ms (default 500). */
  drainMs?: number;
  /** An fd of this process whose other end only the engine holds (see GATE_SCRIPT_WITH_LIFELINE); absent when this process is the engine. */
  lifeline?: number | undefined;
}

export interface ExecResult {
  /** Exit status of the command, or null when it was ended by a signal. */
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Wall time from `go` to the leader's exit, ms (0 when it never started). */
  durationMs: number;
  stdout: CapturedOutput;
  stderr: CapturedOutput;
  /** The command was let through the gate. */
  started: boolean;
  /** It was stopped because `signal` aborted. */
  aborted: boolean;
  pgid: number;
}

export async function execCommand(spec: CommandSpec, options: ExecOptions): Promise<ExecResult> {
  let cwdOk = false;
  try {
    cwdOk = fs.statSync(spec.cwd).isDirectory();
  } catch {
    cwdOk = false;
  }
  if (!cwdOk) {
    throw new KowalskiError('KW_ERR_COMMAND_SPAWN', `cannot run ${JSON.stringify(spec.argv)}: the folder ${spec.cwd} does not exist`);
  }
  if (spec.argv.length === 0) throw new KowalskiError('KW_ERR_COMMAND_SPAWN', 'cannot run an empty command');
  if (options.signal.aborted) throw new KowalskiError('KW_ERR_STEP_CANCELLED', 'the step was stopped before its command started');

  const lifeline = options.lifeline;
  // stdin, stdout and stderr are pipes whichever the lifeline is (its number keeps TypeScript from seeing so).
  const child: ChildProcessWithoutNullStreams = spawn('/bin/sh', ['-c', lifeline === undefined ? GATE_SCRIPT : GATE_SCRIPT_WITH_LIFELINE, 'kowalski-gate', ...spec.argv], {
    cwd: spec.cwd,
    env: options.env,
    detached: true,
    // fd 3: the sentinel's socket (see GATE_SCRIPT); this process holds the only other end. fd 4: the engine's lifeline.
    stdio: lifeline === undefined ? ['pipe', 'pipe', 'pipe', 'pipe'] : ['pipe', 'pipe', 'pipe', 'pipe', lifeline],
  }) as ChildProcessWithoutNullStreams;
  const sentinel = child.stdio[3];
  sentinel?.on('error', () => undefined); // nothing is ever written on it; its end is all that matters
  const stdout = new BoundedCapture(options.outputBytes);
  const stderr = new BoundedCapture(options.outputBytes);
  child.stdout.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr.on('data', (chunk: Buffer) => stderr.push(chunk));
  child.stdin.on('error', () => undefined); // EPIPE when the gate is gone: its exit tells the story
  const streamsClosed = Promise.all([
    new Promise<void>((resolve) => child.stdout.once('close', resolve)),
    new Promise<void>((resolve) => child.stderr.once('close', resolve)),
  ]);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
  const pgid = await new Promise<number>((resolve, reject) => {
    child.once('spawn', () => resolve(child.pid ?? -1));
    child.once('error', (err) => reject(new KowalskiError('KW_ERR_COMMAND_SPAWN',
      `cannot run ${JSON.stringify(spec.argv)} in ${spec.cwd}: ${err.message}`, { cause: err })));
  });

  const grace = Math.min(options.killGraceMs ?? 1500, 2000);
  let aborted = false;
  let killTimer: NodeJS.Timeout | undefined;
  const onAbort = (): void => {
    if (aborted) return;
    aborted = true;
    child.stdin.end();
    killGroup(pgid, 'SIGTERM');
    killTimer = setTimeout(() => killGroup(pgid, 'SIGKILL'), grace);
  };
  options.signal.addEventListener('abort', onAbort, { once: true });

  let started = false;
  let startedAt = 0;
  try {
    await options.spawned(pgid);
    if (!options.signal.aborted) {
      started = true;
      startedAt = performance.now();
      child.stdin.end('go\n');
    }
  } catch {
    onAbort(); // not recorded (or cancelled): the gate must not open
  }
  if (options.signal.aborted) onAbort();

  const exit = await exited;
  const durationMs = started ? Math.round(performance.now() - startedAt) : 0;
  options.signal.removeEventListener('abort', onAbort);
  if (killTimer !== undefined) clearTimeout(killTimer);
  // Nothing of the group outlives its leader (a background job left behind, say).
  killGroup(pgid, 'SIGKILL');
  let drainTimer: NodeJS.Timeout | undefined;
  await Promise.race([
    streamsClosed,
    new Promise<void>((resolve) => {
      drainTimer = setTimeout(resolve, options.drainMs ?? 500);
    }),
  ]);
  if (drainTimer !== undefined) clearTimeout(drainTimer);
  child.stdout.destroy();
  child.stderr.destroy();
  sentinel?.destroy();

  return {
    exitCode: exit.code,
    signal: exit.signal,
    durationMs,
    stdout: stdout.result(),
    stderr: stderr.result(),
    started,
    aborted,
    pgid,
  };
}
