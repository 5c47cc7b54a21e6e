/**
 * Worker threads for jobs that must not hold up the event loop: `jobThread` on the caller's
 * side, `serveJobs` in the thread's module. A light face (no engine), so a thread that
 * only loads hordes or checks bundles does not load the whole engine.
 */
export { jobThread } from './job-thread.js';
export type { JobAnswer, JobThread } from './job-thread.js';
export { serveJobs } from './job-serve.js';
