/**
 * The thread side of a JobThread (job-thread.ts): answer each job posted to this worker
 * with the handler's value, or its failure as a PlainError. Jobs run concurrently. The
 * handler's `onProgress` reports go to the caller's `onProgress` as they are made.
 */
import { parentPort } from 'node:worker_threads';
import type { Progress } from '../../contract/progress.js';
import { toPlainError } from '../../core/index.js';
import type { JobAnswer, JobProgress } from './job-thread.js';

export function serveJobs<Req, Res>(handler: (job: Req, onProgress: Progress) => Promise<Res>): void {
  const port = parentPort;
  if (port === null) throw new Error('serveJobs runs in a worker thread');
  const fail = (id: number, err: unknown): void => port.postMessage({ id, ok: false, error: toPlainError(err) } satisfies JobAnswer<Res>);
  port.on('message', ({ id, job }: { id: number; job: Req }) => {
    const onProgress: Progress = (progress) => port.postMessage({ id, progress } satisfies JobProgress);
    handler(job, onProgress).then((value) => {
      try {
        port.postMessage({ id, ok: true, value } satisfies JobAnswer<Res>);
      } catch (err) {
        fail(id, err); // a value that is not plain data (a bug): said, not thrown in this thread
      }
    }, (err: unknown) => fail(id, err));
  });
}
