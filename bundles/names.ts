/**
 * The rules for entry names of a bundle. A name is a `/`-separated relative path, written
 * into a horde folder as is: it is never URL-decoded (`%2e%2e/x` is a folder literally
 * named `%2e%2e`), never trimmed, never case-folded. Anything that could mean a different
 * place on some system — `..`, an absolute path, a drive letter, a backslash, a control
 * character, a name Windows would alter — is refused, and so are two names that are the
 * same file on a case-insensitive or normalising file system.
 */

/** A name's verdict: the path (without a folder's trailing `/`), or the rule it breaks. */
export type NameCheck = { ok: true; path: string; directory: boolean } | { ok: false; rule: string };

/** Longest name accepted, in UTF-16 code units, and deepest nesting. */
export const MAX_NAME_LENGTH = 400;
export const MAX_NAME_DEPTH = 16;

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

export function checkEntryName(name: string): NameCheck {
  const no = (rule: string): NameCheck => ({ ok: false, rule });
  if (name === '') return no('the name is empty');
  if (/[\u0000-\u001f\u007f-\u009f]/.test(name)) return no('the name holds a NUL or control character');
  if (/[\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/.test(name)) return no('the name holds an invisible or text-reordering character (zero-width, bidirectional)');
  if (/^[A-Za-z]:/.test(name)) return no('the name starts with a drive letter (an absolute Windows path)');
  if (name.includes('\\')) return no('the name holds a backslash (a Windows path separator; names use / only)');
  if (name.startsWith('/')) return no('the name is an absolute path');
  if (/[<>:"|?*]/.test(name)) return no('the name holds a character Windows forbids (< > : " | ? *: drive letters, alternate streams)');
  if (name.length > MAX_NAME_LENGTH) return no(`the name is longer than ${MAX_NAME_LENGTH} characters`);
  const directory = name.endsWith('/');
  const body = directory ? name.slice(0, -1) : name;
  const segments = body.split('/');
  if (segments.length > MAX_NAME_DEPTH) return no(`the name is nested deeper than ${MAX_NAME_DEPTH} folders`);
  if (segments.includes('')) return no('the name has an empty segment (//)');
  if (segments.includes('..')) return no('the name climbs out with a ".." segment (zip-slip)');
  if (segments.includes('.')) return no('the name has a "." segment');
  if (segments.some((s) => s.startsWith('.'))) return no('the name is a hidden (dot) file or folder; a bundle holds none');
  if (segments.some((s) => s.endsWith(' ') || s.endsWith('.'))) return no('a segment ends with a space or a dot (Windows drops them, so two names could be one file)');
  if (segments.some((s) => WINDOWS_RESERVED.test(s))) return no('a segment is a reserved device name on Windows (CON, NUL, COM1, …)');
  return { ok: true, path: body, directory };
}

/** Two names with the same key are one file on a case-insensitive or Unicode-normalising file system. */
export function collisionKey(name: string): string {
  return name.normalize('NFC').toLowerCase().normalize('NFC');
}

/**
 * The first clash among checked names: two with the same collision key, or one used both
 * as a file and as a folder (`a` and `a/b`). Folders are the `directory` entries and every
 * parent of a file.
 */
export function findCollision(names: readonly { path: string; directory: boolean }[]): { name: string; rule: string } | undefined {
  const files = new Map<string, string>();
  const folders = new Map<string, string>();
  for (const n of names) {
    if (n.directory) continue;
    const key = collisionKey(n.path);
    const earlier = files.get(key);
    if (earlier !== undefined) {
      return { name: n.path, rule: earlier === n.path ? 'the name appears twice' : `the name collides with ${JSON.stringify(earlier)} (same file once case and Unicode normalisation are folded)` };
    }
    files.set(key, n.path);
  }
  for (const n of names) {
    const segments = n.path.split('/');
    const parents = n.directory ? segments.length : segments.length - 1;
    for (let i = 1; i <= parents; i++) {
      const folder = segments.slice(0, i).join('/');
      const key = collisionKey(folder);
      const asFile = files.get(key);
      if (asFile !== undefined) return { name: n.path, rule: `the name needs ${JSON.stringify(folder)} to be a folder, but ${JSON.stringify(asFile)} is a file` };
      const spelled = folders.get(key);
      if (spelled !== undefined && spelled !== folder) return { name: n.path, rule: `the folder ${JSON.stringify(folder)} collides with ${JSON.stringify(spelled)} (same folder once case and Unicode normalisation are folded)` };
      folders.set(key, folder);
    }
  }
  return undefined;
}
