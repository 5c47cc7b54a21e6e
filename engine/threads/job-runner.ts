/**
 * The caller's side of a job runner (job-thread.ts, job-process.ts), whatever carries the
 * jobs: one module, started at the first job, answering each job with one message. Jobs
 * and answers are plain data (structured clone); a failure comes back as a PlainError and
 * is rebuilt as a KowalskiError. While no job is pending the carrier does not keep the
 * process alive, and after `idleMs` without one it ends, so the memory a large job took
 * goes back (the next job starts a new one); `close()` ends it. If it dies, its pending
 * jobs fail and the next job starts a new one.
 */
import type { Progress, ProgressReport } from '../../contract/progress.js';
import { KowalskiError, NO_PROGRESS, fromPlainError } from '../../core/index.js';
import type { PlainError } from '../../core/index.js';

/** After this long without a job, the thread or process ends, ms. */
export const IDLE_MS = 10_000;

/** What the thread answers to job `id`. */
export type JobAnswer<Res> = { id: number; ok: true; value: Res } | { id: number; ok: false; error: PlainError };

/** How far job `id` got, told before its answer (the job's `Progress` reports). */
export interface JobProgress {
  id: number;
  progress: ProgressReport;
}

export interface JobThread<Req, Res> {
  /**
   * `transfer`: buffers of the job handed over to a thread, not copied (unusable here
   * afterwards; a process gets a copy). `onProgress` hears the reports the job makes.
   */
  run(job: Req, transfer?: ArrayBuffer[], onProgress?: Progress): Promise<Res>;
  /** End the thread or process (pending jobs fail with KW_ERR_INTERNAL); a later `run` starts a new one. */
  close(): Promise<void>;
  /** The running thread's id (a process's pid), undefined while none runs. */
  threadId(): number | undefined;
}

/** What carries the jobs: a worker thread or a child process, as `start` made it. */
export interface JobCarrier<Res> {
  /** What it is, as its failures name it. */
  readonly kind: 'thread' | 'process';
  readonly id: number;
  post(message: unknown, transfer: ArrayBuffer[]): void;
  /** Its messages, its failure (a thread's error, a process that could not start) and its end. */
  listen(on: { message(m: JobAnswer<Res> | JobProgress): void; error(err: Error): void; exit(code: number | null): void }): void;
  /** Whether it keeps the caller's process alive. */
  ref(): void;
  unref(): void;
  /** End it; `quiet`: its listeners removed first (an idle end must not fail the jobs a new one takes meanwhile). */
  end(quiet: boolean): Promise<void>;
}

export function jobRunner<Req, Res>(base: string, idleMs: number, start: () => JobCarrier<Res>): JobThread<Req, Res> {
  let carrier: JobCarrier<Res> | undefined;
  let nextId = 1;
  let idleTimer: NodeJS.Timeout | undefined;
  const pending = new Map<number, { resolve(value: Res): void; reject(err: Error): void; onProgress: Progress }>();
  const endWhenIdle = (c: JobCarrier<Res>): void => {
    clearTimeout(idleTimer);
    // Memory housekeeping, not engine time: nothing a simulated clock would drive (so not the injected Timers).
    // eslint-disable-next-line no-restricted-globals
    idleTimer = setTimeout(() => {
      if (carrier !== c || pending.size > 0) return;
      carrier = undefined;
      void c.end(true);
    }, idleMs);
    idleTimer.unref();
  };
  const failAll = (err: Error): void => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  const begin = (): JobCarrier<Res> => {
    const c = start();
    c.listen({
      message(answer) {
        const p = pending.get(answer.id);
        if (p === undefined) return;
        if ('progress' in answer) {
          p.onProgress(answer.progress);
          return;
        }
        pending.delete(answer.id);
        if (pending.size === 0) {
          c.unref();
          endWhenIdle(c);
        }
        if (answer.ok) p.resolve(answer.value);
        else p.reject(fromPlainError(answer.error));
      },
      error(err) {
        if (carrier === c) carrier = undefined;
        failAll(new KowalskiError('KW_ERR_INTERNAL', `the ${base} ${c.kind} failed: ${err.message}`, { cause: err }));
      },
      exit(code) {
        if (carrier === c) carrier = undefined;
        failAll(new KowalskiError('KW_ERR_INTERNAL', `the ${base} ${c.kind} ended (exit code ${code})`));
      },
    });
    return c;
  };

  return {
    run(job, transfer = [], onProgress = NO_PROGRESS) {
      clearTimeout(idleTimer);
      carrier ??= begin();
      const c = carrier;
      const id = nextId++;
      return new Promise<Res>((resolve, reject) => {
        pending.set(id, { resolve, reject, onProgress });
        c.ref();
        c.post({ id, job }, transfer);
      });
    },
    threadId: () => carrier?.id,
    async close() {
      clearTimeout(idleTimer);
      const c = carrier;
      carrier = undefined;
      if (c !== undefined) await c.end(false);
    },
  };
}
