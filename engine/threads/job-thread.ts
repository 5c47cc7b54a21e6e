/**
 * A worker thread for work that must not hold up the caller's event loop (loading hordes,
 * reviewing an uploaded bundle): one module, started at the first job, answering each job
 * with one message. Jobs and answers are plain data (structured clone); a failure comes
 * back as a PlainError and is rebuilt as a KowalskiError. While no job is pending the
 * thread does not keep the process alive, and after `idleMs` without one it ends, so the
 * memory a large job grew its heap to goes back (the next job starts a new thread);
 * `close()` ends it. If the thread dies, its pending jobs fail and the next job starts a
 * new one.
 */
import { Worker } from 'node:worker_threads';
import type { Progress, ProgressReport } from '../../contract/progress.js';
import { KowalskiError, NO_PROGRESS, fromPlainError } from '../../core/index.js';
import type { PlainError } from '../../core/index.js';
import { workerEntry } from '../modules.js';

/** After this long without a job, the thread ends, ms. */
const IDLE_MS = 10_000;

/** What the thread answers to job `id`. */
export type JobAnswer<Res> = { id: number; ok: true; value: Res } | { id: number; ok: false; error: PlainError };

/** How far job `id` got, told before its answer (the job's `Progress` reports). */
export interface JobProgress {
  id: number;
  progress: ProgressReport;
}

export interface JobThread<Req, Res> {
  /**
   * `transfer`: buffers of the job handed over to the thread, not copied (unusable here
   * afterwards). `onProgress` hears the reports the job makes in the thread.
   */
  run(job: Req, transfer?: ArrayBuffer[], onProgress?: Progress): Promise<Res>;
  /** End the thread (pending jobs fail with KW_ERR_INTERNAL); a later `run` starts a new one. */
  close(): Promise<void>;
  /** The running thread's id, undefined while none runs. */
  threadId(): number | undefined;
}

/**
 * The thread running `base` (a module beside `metaUrl`, e.g. `catalog.worker`, which calls
 * `serveJobs`). From dist/ it is the .js file; from the sources, tsx is registered first.
 */
export function jobThread<Req, Res>(metaUrl: string, base: string, idleMs = IDLE_MS): JobThread<Req, Res> {
  let worker: Worker | undefined;
  let nextId = 1;
  let idleTimer: NodeJS.Timeout | undefined;
  const pending = new Map<number, { resolve(value: Res): void; reject(err: Error): void; onProgress: Progress }>();
  const endWhenIdle = (w: Worker): void => {
    clearTimeout(idleTimer);
    // Memory housekeeping, not engine time: nothing a simulated clock would drive (so not the injected Timers).
    // eslint-disable-next-line no-restricted-globals
    idleTimer = setTimeout(() => {
      if (worker !== w || pending.size > 0) return;
      worker = undefined;
      // Its exit must not fail the jobs a new thread takes meanwhile.
      w.removeAllListeners();
      w.on('error', () => undefined);
      void w.terminate();
    }, idleMs);
    idleTimer.unref();
  };

  const failAll = (err: Error): void => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  const start = (): Worker => {
    const w = new Worker(workerEntry(metaUrl, base));
    w.on('message', (answer: JobAnswer<Res> | JobProgress) => {
      const p = pending.get(answer.id);
      if (p === undefined) return;
      if ('progress' in answer) {
        p.onProgress(answer.progress);
        return;
      }
      pending.delete(answer.id);
      if (pending.size === 0) {
        w.unref();
        endWhenIdle(w);
      }
      if (answer.ok) p.resolve(answer.value);
      else p.reject(fromPlainError(answer.error));
    });
    w.on('error', (err) => {
      if (worker === w) worker = undefined;
      failAll(new KowalskiError('KW_ERR_INTERNAL', `the ${base} thread failed: ${err.message}`, { cause: err }));
    });
    w.on('exit', (code) => {
      if (worker === w) worker = undefined;
      failAll(new KowalskiError('KW_ERR_INTERNAL', `the ${base} thread ended (exit code ${code})`));
    });
    return w;
  };

  return {
    run(job, transfer = [], onProgress = NO_PROGRESS) {
      clearTimeout(idleTimer);
      worker ??= start();
      const w = worker;
      const id = nextId++;
      return new Promise<Res>((resolve, reject) => {
        pending.set(id, { resolve, reject, onProgress });
        w.ref();
        w.postMessage({ id, job }, transfer);
      });
    },
    threadId: () => worker?.threadId,
    async close() {
      clearTimeout(idleTimer);
      const w = worker;
      worker = undefined;
      if (w !== undefined) await w.terminate();
    },
  };
}
