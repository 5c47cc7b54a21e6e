/**
 * How a bundle is refused: one KW_ERR_BUNDLE_INVALID naming the entry and the rule it
 * broke (and, when the horde inside is invalid, every problem with its file and line).
 */
import { KowalskiError } from '../core/index.js';
import type { Problem } from '../core/index.js';
import { printable } from './printable.js';

export class BundleInvalidError extends KowalskiError {
  /** When the horde content failed validation: every problem, each with file, key and line. */
  readonly problems: Problem[];
  constructor(message: string, options: { where?: { file?: string; key?: string; line?: number }; problems?: Problem[]; cause?: unknown } = {}) {
    const { problems = [], ...rest } = options;
    super('KW_ERR_BUNDLE_INVALID', message, rest);
    this.name = 'BundleInvalidError';
    this.problems = problems;
  }
}

/** The bundle is refused because of `entry`: `bundle entry "<entry>": <rule>; nothing was written`. */
export function rejectEntry(entry: string, rule: string): BundleInvalidError {
  return new BundleInvalidError(`bundle entry ${printable(JSON.stringify(entry))}: ${rule}; nothing was written`, { where: { file: entry } });
}

/** The bundle is refused as a whole (not a zip, too many entries, …). */
export function rejectBundle(rule: string): BundleInvalidError {
  return new BundleInvalidError(`bundle refused: ${rule}; nothing was written`);
}
