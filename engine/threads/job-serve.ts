/**
 * The other side of a job runner (job-runner.ts): answer each job posted to this worker
 * thread, or to this child process over its IPC channel, with the handler's value, or its
 * failure as a PlainError. Jobs run concurrently. The handler's `onProgress` reports go to
 * the caller's `onProgress` as they are made. A process ends when its parent goes.
 */
import { parentPort } from 'node:worker_threads';
import type { Progress } from '../../contract/progress.js';
import { toPlainError } from '../../core/index.js';
import type { JobAnswer, JobProgress } from './job-runner.js';

export function serveJobs<Req, Res>(handler: (job: Req, onProgress: Progress) => Promise<Res>): void {
  const port = parentPort;
  const inProcess = port === null && process.send !== undefined;
  if (port === null && !inProcess) throw new Error('serveJobs runs in a worker thread or a child process with an IPC channel');
  const post = (message: JobAnswer<Res> | JobProgress): void => {
    if (port !== null) port.postMessage(message);
    else if (process.connected) process.send!(message);
  };
  const fail = (id: number, err: unknown): void => post({ id, ok: false, error: toPlainError(err) });
  const onJob = ({ id, job }: { id: number; job: Req }): void => {
    const onProgress: Progress = (progress) => post({ id, progress });
    handler(job, onProgress).then((value) => {
      try {
        post({ id, ok: true, value });
      } catch (err) {
        fail(id, err); // a value that is not plain data (a bug): said, not thrown here
      }
    }, (err: unknown) => fail(id, err));
  };
  if (port !== null) port.on('message', onJob);
  else {
    process.on('message', onJob);
    process.once('disconnect', () => process.exit(0));
  }
}
