/** The review process (review-process.ts): checks an uploaded bundle off the server's event loop. */
import { toPlainError } from '../core/index.js';
import { serveJobs } from '../engine/threads/index.js';
import { BundleInvalidError } from './reject.js';
import { checkBundle } from './check.js';
import type { ReviewAnswer, ReviewJob } from './review-process.js';

serveJobs<ReviewJob, ReviewAnswer>(async (job, onProgress) => {
  try {
    const checked = await checkBundle(job.bytes, { dataDir: job.dataDir, knownKinds: new Set(job.knownKinds), ...(job.limits === undefined ? {} : { limits: job.limits }) }, onProgress);
    return { ok: true, checked };
  } catch (err) {
    // A refusal keeps its problems across the thread boundary; anything else is a failure of the job.
    if (err instanceof BundleInvalidError) return { ok: false, error: toPlainError(err), problems: err.problems };
    throw err;
  }
});
