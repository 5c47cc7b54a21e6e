/**
 * Relative paths in a horde: `output`, `context_paths`, `workdir`, `delivery_root_rel`,
 * `prompt_file`. Each must stay inside its root: no absolute path, no `..` segment.
 * Checked here at validation, so nothing has to guess at run time.
 */
import path from 'node:path';
import type { Fields } from './fields.js';

export type RelPathResult =
  | { ok: true; path: string }
  /** `escapes`: absolute or with a `..` segment (KW_ERR_PATH_ESCAPES); otherwise a plain bad value. */
  | { ok: false; escapes: boolean; reason: string };

/**
 * Check and normalise a relative path: backslashes become `/`, `.` segments and repeated
 * slashes go away; a trailing `/` is kept (it means "a folder" for `output`).
 */
export function checkRelPath(value: string): RelPathResult {
  if (value.trim() === '') return { ok: false, escapes: false, reason: 'is empty' };
  if (value.includes('\0')) return { ok: false, escapes: false, reason: 'holds a NUL character' };
  const slashed = value.replace(/\\/g, '/');
  if (slashed.startsWith('/') || /^[A-Za-z]:/.test(slashed)) {
    return { ok: false, escapes: true, reason: `"${value}" is absolute; write it relative to its root` };
  }
  if (slashed.split('/').includes('..')) {
    return { ok: false, escapes: true, reason: `"${value}" has a .. segment and could leave its root` };
  }
  const trailing = slashed.endsWith('/');
  const normal = path.posix.normalize(slashed).replace(/\/+$/, '');
  if (normal === '.' || normal === '') return { ok: true, path: trailing ? './' : '.' };
  return { ok: true, path: trailing ? `${normal}/` : normal };
}

/** True when `child` (absolute, real) is `root` or inside it. */
export function isInside(root: string, child: string): boolean {
  const rel = path.relative(root, child);
  return rel === '' || (rel !== '..' && !rel.startsWith(`..${path.sep}`) && !path.isAbsolute(rel));
}

/**
 * Check a relative path found at `key` of `f` and report what is wrong with it
 * (KW_ERR_PATH_ESCAPES, or the table's value code). `root` names the root in messages.
 */
export function checkPathAt(f: Fields, key: string, value: string, root: string): string | undefined {
  const r = checkRelPath(value);
  if (r.ok) return r.path;
  const message = r.escapes ? `${key}: ${r.reason}; it must stay inside ${root}` : `${key} ${r.reason}`;
  f.bad(key, message, r.escapes ? 'KW_ERR_PATH_ESCAPES' : f.codes.value);
  return undefined;
}
