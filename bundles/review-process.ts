/**
 * Reviewing an uploaded bundle in a child process (`jobProcess`): inflating up to 20 MiB,
 * hashing it and validating the horde inside (which may be 1 MiB of TOML with thousands of
 * problems) never holds up the server's event loop, and the memory it takes goes back to
 * the system when the process ends, 10 s after the last review (a worker thread's malloc
 * arena stayed with the server, ~70 MiB after a burst of uploads: `npm run bench -- memory`). Only the question "is its id taken?" is asked here, of
 * the caller's catalog. The result is the same as `reviewBundle` in-process.
 */
import type { Progress } from '../contract/progress.js';
import type { PlainError, Problem } from '../core/index.js';
import { builtinKindNames } from '../engine/index.js';
import type { OwnCode } from '../steps/index.js';
import { IDLE_MS, jobProcess } from '../engine/threads/index.js';
import type { BundleLimits } from './limits.js';
import { BundleInvalidError } from './reject.js';
import { withExisting } from './review.js';
import type { ReviewOptions, StagedBundle } from './review.js';
import type { CheckedBundle } from './check.js';

/** What the process is asked (plain data). */
export interface ReviewJob {
  bytes: Uint8Array;
  dataDir: string;
  knownKinds: string[];
  limits?: Partial<BundleLimits>;
}

/** What it answers: the checked bundle, or the refusal with the problems of the horde inside. */
export type ReviewAnswer = { ok: true; checked: CheckedBundle } | { ok: false; error: PlainError; problems: Problem[] };

export interface BundleReviewer {
  /** `reviewBundle`, done in the process (its progress told to `onProgress` here). `bytes` are copied; the caller keeps them. */
  review(bytes: Uint8Array, options: ReviewOptions, onProgress?: Progress): Promise<StagedBundle>;
  close(): Promise<void>;
}

/**
 * Started at the first review; the process ends 10 s after the last. `code`: the engine's own
 * code (its `ownCode`), where the process's module is and its Node flags; by default the
 * module beside this one.
 */
export function reviewProcess(code?: OwnCode): BundleReviewer {
  const module = code === undefined ? undefined : { file: code.file('bundles/review.worker'), execArgv: code.execArgv };
  const child = jobProcess<ReviewJob, ReviewAnswer>(import.meta.url, 'review.worker', IDLE_MS, module);
  return {
    async review(bytes, options, onProgress) {
      // A view is sent with its whole buffer (a small Buffer may be a view of a shared pool): then only its own bytes, copied.
      const whole = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength;
      const job: ReviewJob = {
        bytes: whole ? bytes : new Uint8Array(bytes),
        dataDir: options.dataDir,
        knownKinds: [...(options.knownKinds ?? builtinKindNames())],
        ...(options.limits === undefined ? {} : { limits: options.limits }),
      };
      const answer = await child.run(job, [], onProgress);
      if (!answer.ok) {
        throw new BundleInvalidError(answer.error.message, { ...(answer.error.where === undefined ? {} : { where: answer.error.where }), problems: answer.problems });
      }
      return withExisting(answer.checked, options);
    },
    close: () => child.close(),
  };
}
