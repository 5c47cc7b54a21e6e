/**
 * Text that came in a bundle, made safe to show on a terminal: control characters (ANSI
 * escapes included) and the Unicode marks that reorder text (bidirectional overrides)
 * appear as visible escapes, so nothing in a bundle can hide, erase or reorder what its
 * review shows.
 */
const HIDDEN = /[\u0000-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

export function printable(text: string): string {
  return text.replace(HIDDEN, (c) => (c === '\n' ? '\\n' : c === '\t' ? '\\t' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}
