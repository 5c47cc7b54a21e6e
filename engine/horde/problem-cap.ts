/**
 * What a load reports is bounded, whatever the folder holds: at most MAX_PROBLEMS_PER_FILE
 * problems of a file and MAX_PROBLEMS of a horde are listed, each message and key clipped;
 * what is left out is counted in one KW_ERR_TOO_MANY_PROBLEMS summary per file (and one for
 * files with nothing listed). The horde is valid or not by every problem, listed or not.
 */
import type { Problem } from '../../core/index.js';

/** Problems listed per file, in file-then-line order. */
export const MAX_PROBLEMS_PER_FILE = 100;
/** Problems listed per horde (summaries not counted). */
export const MAX_PROBLEMS = 500;
/** Characters of a problem's message; a longer one keeps its start and end. */
export const MAX_MESSAGE_CHARS = 1000;
/** Characters of a problem's key. */
export const MAX_KEY_CHARS = 200;

const SUMMARY_CODE = 'KW_ERR_TOO_MANY_PROBLEMS';

/** `text`, or its start and end around `… (N characters left out) …` when longer than `max`. */
export function clipText(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.6);
  const tail = Math.floor(max * 0.3);
  return `${text.slice(0, head)} … (${(text.length - head - tail).toLocaleString('en-US')} characters left out) … ${text.slice(text.length - tail)}`;
}

/** Errors and warnings, counting what each summary stands for. */
export function countProblems(problems: readonly Problem[]): { errors: number; warnings: number } {
  let errors = 0;
  let warnings = 0;
  for (const p of problems) {
    if (p.omitted !== undefined) {
      errors += p.omitted.errors;
      warnings += p.omitted.warnings;
    } else if (p.severity === 'error') errors += 1;
    else warnings += 1;
  }
  return { errors, warnings };
}

/** The listed part of `sorted` (file-then-line order, files contiguous), with a summary after each cut. */
export function capProblems(sorted: readonly Problem[]): Problem[] {
  if (sorted.length <= MAX_PROBLEMS_PER_FILE) return [...sorted];
  const out: Problem[] = [];
  const unlisted = { errors: 0, warnings: 0, files: 0 };
  let listed = 0;
  for (let start = 0; start < sorted.length;) {
    const file = sorted[start]!.file;
    let end = start;
    while (end < sorted.length && sorted[end]!.file === file) end += 1;
    const take = Math.min(end - start, MAX_PROBLEMS_PER_FILE, MAX_PROBLEMS - listed);
    for (let i = start; i < start + take; i += 1) out.push(sorted[i]!);
    listed += take;
    const rest = countProblems(sorted.slice(start + take, end));
    if (take > 0 && rest.errors + rest.warnings > 0) out.push(summary(file, rest, `in this file are not listed: at most ${MAX_PROBLEMS_PER_FILE} problems of a file and ${MAX_PROBLEMS} of a horde are`));
    if (take === 0) {
      unlisted.errors += rest.errors;
      unlisted.warnings += rest.warnings;
      unlisted.files += 1;
    }
    start = end;
  }
  if (unlisted.files > 0) {
    const files = `${unlisted.files.toLocaleString('en-US')} more file${unlisted.files === 1 ? '' : 's'}`;
    out.push(summary('.', unlisted, `in ${files} are not listed: at most ${MAX_PROBLEMS} problems of a horde are`));
  }
  return out;
}

function summary(file: string, omitted: { errors: number; warnings: number }, why: string): Problem {
  const n = omitted.errors + omitted.warnings;
  const parts = [[omitted.errors, 'error'], [omitted.warnings, 'warning']] as const;
  const detail = parts.filter(([k]) => k > 0).map(([k, what]) => `${k.toLocaleString('en-US')} ${what}${k === 1 ? '' : 's'}`).join(', ');
  return {
    severity: omitted.errors > 0 ? 'error' : 'warning',
    code: SUMMARY_CODE,
    file,
    message: `${n.toLocaleString('en-US')} more problem${n === 1 ? '' : 's'} (${detail}) ${why}; fix the ones listed and validate again`,
    omitted: { errors: omitted.errors, warnings: omitted.warnings },
  };
}
