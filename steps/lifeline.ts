/**
 * The lifeline: one extra stdio socket of each process the engine forks to start
 * commands (the spawn helper, an isolated step's child). The engine keeps its end open
 * and never reads or writes it; the child hands its end to every command's gate as fd 4
 * (exec.ts, GATE_SCRIPT_WITH_LIFELINE). When the engine dies, SIGKILL included, the
 * kernel closes the engine's end and every gate's sentinel kills its command's group,
 * without waiting for the child in between to notice.
 *
 * The child never opens its end as a stream: it must stay blocking (as libuv leaves a
 * child's fds past stderr), for a sentinel's `read` on a non-blocking socket would fail
 * at once and kill its command.
 */
import type { ChildProcess, StdioOptions } from 'node:child_process';
import type { Socket } from 'node:net';

/** Where the lifeline is in the forked child. */
export const LIFELINE_FD = 4;

/** `stdio` for a forked child: stderr as given, the IPC channel at 3, the lifeline at 4. */
export function stdioWithLifeline(stderr: 'pipe' | 'inherit'): StdioOptions {
  return ['ignore', 'ignore', stderr, 'ipc', 'pipe'];
}

/** Keep the engine's end of `child`'s lifeline: open for as long as the child lives, without keeping this process alive. */
export function holdLifeline(child: ChildProcess): void {
  const end = child.stdio[LIFELINE_FD] as Socket | null | undefined;
  if (end === null || end === undefined) return;
  end.on('error', () => undefined); // the child's end closes with the child: nothing to report
  end.unref();
}
