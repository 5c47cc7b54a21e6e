/**
 * Helpers for step kinds: writing the step's Markdown artifact (into the workdir, and a
 * copy kept per attempt), reading the context a step names (`@artifact@`,
 * `@step:<name>@`, workdir-relative paths, never outside the workdir), and fencing
 * arbitrary text safely in Markdown.
 */
import fs from 'node:fs';
import path from 'node:path';
import { KowalskiError } from '../core/index.js';
import { resolveInside, writeFileAtomic } from './paths.js';
import type { StepTask } from './protocol.js';

/**
 * Write the artifact (Markdown, or bytes such as a workbook) to `<workdir>/<step.output>`
 * (creating folders) and keep a copy in `<attemptDir>/<step.output>`, which is never
 * overwritten. Returns `step.output`.
 */
export function writeArtifact(task: StepTask, markdown: string | Uint8Array): string {
  const rel = task.step.output;
  const where = { file: task.step.file, key: 'output' };
  const target = resolveInside(task.workdir, rel, 'KW_ERR_PATH_ESCAPES', 'the step output', where, true);
  writeFileAtomic(target, markdown);
  const copy = path.join(task.attemptDir, path.normalize(rel));
  fs.mkdirSync(path.dirname(copy), { recursive: true });
  try {
    fs.writeFileSync(copy, markdown, { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new KowalskiError('KW_ERR_INTERNAL', `attempt ${task.attempt} of step \`${task.step.name}\` already has an artifact at ${copy}; it is never overwritten`);
    }
    throw err;
  }
  return rel;
}

/** Write another file of the step into the workdir (atomically, inside the workdir only). Returns its absolute path. */
export function writeWorkdirFile(task: StepTask, rel: string, data: string | Uint8Array): string {
  const target = resolveInside(task.workdir, rel, 'KW_ERR_PATH_ESCAPES', 'the file', { file: task.step.file }, true);
  writeFileAtomic(target, data);
  return target;
}

/**
 * A context reference → absolute path inside the workdir: `@artifact@` is the previous
 * step's output, `@step:<name>@` another step's output, anything else is workdir-relative.
 */
export function resolveContextRef(task: StepTask, ref: string): string {
  const where = { file: task.step.file, key: 'context_paths' };
  let rel: string;
  if (ref === '@artifact@') {
    if (task.previousOutput === undefined) {
      throw new KowalskiError('KW_ERR_CONTEXT_MISSING', `step \`${task.step.name}\` reads @artifact@, but no step ran before it`, { where });
    }
    rel = task.previousOutput;
  } else if (ref.startsWith('@step:') && ref.endsWith('@') && ref.length > '@step:@'.length) {
    const name = ref.slice('@step:'.length, -1);
    const out = Object.hasOwn(task.stepOutputs, name) ? task.stepOutputs[name] : undefined;
    if (out === undefined) {
      throw new KowalskiError('KW_ERR_CONTEXT_MISSING', `step \`${task.step.name}\` reads ${ref}, but the horde has no step \`${name}\``, { where });
    }
    rel = out;
  } else {
    rel = ref;
  }
  const what = ref === rel ? 'the context path' : `the context path ${ref} →`;
  return resolveInside(task.workdir, rel, 'KW_ERR_PATH_ESCAPES', what, where);
}

/** Read a context reference as UTF-8 text; a missing file is KW_ERR_CONTEXT_MISSING naming the reference. */
export function readContext(task: StepTask, ref: string): { ref: string; path: string; text: string } {
  const abs = resolveContextRef(task, ref);
  try {
    return { ref, path: abs, text: fs.readFileSync(abs, 'utf8') };
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') {
      throw new KowalskiError('KW_ERR_CONTEXT_MISSING',
        `step \`${task.step.name}\` reads ${ref}, but ${path.relative(task.workdir, abs) || abs} is not a file in the workdir`,
        { where: { file: task.step.file, key: 'context_paths' } });
    }
    throw err;
  }
}

/** A fenced code block that `text` cannot break out of (the fence is longer than any backtick run inside). */
export function fence(text: string, info = ''): string {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const bar = '`'.repeat(longest + 1);
  return `${bar}${info}\n${text}${text.endsWith('\n') || text === '' ? '' : '\n'}${bar}`;
}

/** Inline code that `text` cannot break out of. */
export function inlineCode(text: string): string {
  const flat = text.replace(/\r?\n/g, ' ');
  const longest = Math.max(0, ...Array.from(flat.matchAll(/`+/g), (m) => m[0].length));
  const bar = '`'.repeat(longest + 1);
  const pad = flat.startsWith('`') || flat.endsWith('`') ? ' ' : '';
  return `${bar}${pad}${flat}${pad}${bar}`;
}

/** `1 file`, `2 files`: a count with its noun. */
export function plural(n: number, noun: string, many = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : many}`;
}
