/**
 * A child process for work that must not hold up the caller's event loop and grows memory
 * the caller should not keep (reviewing an uploaded bundle: inflating up to 20 MiB). A
 * worker thread's malloc arena outlives the thread — glibc keeps it, fragmented, for the
 * next thread — so tens of MiB stayed with the server after uploads; a process gives all of
 * it back when it ends (after `idleMs` without a job, as a thread does). Jobs and answers
 * cross the IPC channel with the structured clone (`serialization: 'advanced'`), so
 * buffers are copied, not transferred. The process ends when its parent goes.
 */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { siblingModule } from '../base/modules.js';
import type { ModuleToRun } from '../base/modules.js';
import { IDLE_MS, jobRunner } from './job-runner.js';
import type { JobAnswer, JobCarrier, JobProgress, JobThread } from './job-runner.js';

/** `base` beside `metaUrl`: from the sources, under tsx. */
function siblingJobModule(metaUrl: string, base: string): ModuleToRun {
  const file = siblingModule(metaUrl, base);
  return { file, execArgv: file.endsWith('.ts') ? ['--import', import.meta.resolve('tsx')] : [] };
}

/**
 * The process running `base` (a module beside `metaUrl` that calls `serveJobs`; from the
 * sources, under tsx), or `module` when given (the engine's own code: the tests' built
 * dist/, started without tsx).
 */
export function jobProcess<Req, Res>(metaUrl: string, base: string, idleMs = IDLE_MS, module?: ModuleToRun): JobThread<Req, Res> {
  const { file, execArgv } = module ?? siblingJobModule(metaUrl, base);
  return jobRunner<Req, Res>(base, idleMs, (): JobCarrier<Res> => {
    const child = fork(file, [], { execArgv: [...execArgv], serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    return {
      kind: 'process',
      id: child.pid ?? -1,
      post: (message) => child.send(message as object),
      listen(on) {
        child.on('message', (m: JobAnswer<Res> | JobProgress) => on.message(m));
        child.on('error', (err) => on.error(err));
        child.on('exit', (code) => on.exit(code));
      },
      ref() {
        child.ref();
        child.channel?.ref();
      },
      unref() {
        child.unref();
        child.channel?.unref();
      },
      async end(quiet) {
        if (quiet) {
          child.removeAllListeners();
          child.on('error', () => undefined);
        }
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = once(child, 'exit');
        child.ref(); // its exit is awaited
        child.kill('SIGKILL');
        await exited;
      },
    };
  });
}
