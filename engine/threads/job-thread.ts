/**
 * A worker thread for work that must not hold up the caller's event loop (loading hordes):
 * a job runner (job-runner.ts) whose jobs a worker thread takes. Cheap to start; but glibc
 * keeps the malloc arena a thread used after the thread ends, so work that grows it by tens
 * of MiB (a bundle review) is better in a process (job-process.ts).
 */
import { Worker } from 'node:worker_threads';
import { workerOf } from '../base/modules.js';
import type { ModuleToRun } from '../base/modules.js';
import { IDLE_MS, jobRunner } from './job-runner.js';
import type { JobAnswer, JobCarrier, JobProgress, JobThread } from './job-runner.js';

/**
 * The thread running `base` (a module beside `metaUrl`, e.g. `catalog.worker`, which calls
 * `serveJobs`). From dist/ it is the .js file; from the sources, tsx is registered first.
 * `module`: that module as the engine's own code has it (the tests' dist/, without tsx).
 */
export function jobThread<Req, Res>(metaUrl: string, base: string, idleMs = IDLE_MS, module?: ModuleToRun): JobThread<Req, Res> {
  const { entry, options } = workerOf(metaUrl, base, module);
  return jobRunner<Req, Res>(base, idleMs, (): JobCarrier<Res> => {
    const w = new Worker(entry, options);
    return {
      kind: 'thread',
      id: w.threadId,
      post: (message, transfer) => w.postMessage(message, transfer),
      listen(on) {
        w.on('message', (m: JobAnswer<Res> | JobProgress) => on.message(m));
        w.on('error', (err) => on.error(err));
        w.on('exit', (code) => on.exit(code));
      },
      ref: () => w.ref(),
      unref: () => w.unref(),
      async end(quiet) {
        if (quiet) {
          w.removeAllListeners();
          w.on('error', () => undefined);
        }
        await w.terminate();
      },
    };
  });
}
