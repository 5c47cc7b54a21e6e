/** Run ids: how they are made, and the one pattern every place that takes one checks it against. */
import crypto from 'node:crypto';

/** Time-ordered and unique: `r<time base36><random>`. */
export function newRunId(now: number): string {
  return `r${now.toString(36)}${crypto.randomBytes(5).toString('hex')}`;
}

/** What a run id looks like (a JSON-schema `pattern`); anything else cannot name a run. */
export const RUN_ID_PATTERN = '^r[0-9a-z]{1,40}$';
const RUN_ID = new RegExp(RUN_ID_PATTERN);

export function isRunId(value: string): boolean {
  return RUN_ID.test(value);
}
