/**
 * Worker threads and child processes for jobs that must not hold up the event loop:
 * `jobThread` or `jobProcess` on the caller's side, `serveJobs` in the module that does the
 * work. A light face (no engine), so a thread that only loads hordes or checks bundles does
 * not load the whole engine.
 */
export { jobProcess } from './job-process.js';
export { jobThread } from './job-thread.js';
export { IDLE_MS } from './job-runner.js';
export type { JobAnswer, JobThread } from './job-runner.js';
export { serveJobs } from './job-serve.js';
