/**
 * Names as a person would write them in a draft, made safe: kebab-case ids and step names
 * (`Rust_Project 1.0` → `rust-project-1-0`, as 1.x did), a title from a name, and the
 * values a lenient draft reader accepts (a string, a number written as one, a list of strings).
 */
import { isTable } from '../horde/index.js';
import { MAX_NAME_CHARS } from './limits.js';

/**
 * Lower-case kebab-case: letters and digits kept (accents dropped), `_ . / \` and spaces
 * become `-`, the rest dropped; at most MAX_NAME_CHARS. '' when nothing is left.
 */
export function slugify(text: string): string {
  let out = '';
  for (const c of text.trim().normalize('NFKD')) {
    if (/[A-Za-z0-9]/.test(c)) out += c.toLowerCase();
    else if (/[-_\s./\\]/.test(c) && out !== '' && !out.endsWith('-')) out += '-';
  }
  return out.slice(0, MAX_NAME_CHARS).replace(/-+$/, '');
}

/** `fetch-news` → `Fetch News`. */
export function titleOf(name: string): string {
  return name
    .split('-')
    .filter((w) => w !== '')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

/** A plain object (not an array, not null), or undefined. */
export function asRecord(value: unknown): Record<string, unknown> | undefined {
  return isTable(value) ? value : undefined;
}

/** A string as written; a number or boolean as its text; anything else undefined. */
export function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/** A trimmed, non-empty string, or undefined. */
export function asWord(value: unknown): string | undefined {
  const text = asText(value)?.trim();
  return text === undefined || text === '' ? undefined : text;
}

/** A list of trimmed non-empty strings (a single string is a list of one); duplicates dropped, order kept. */
export function asWords(value: unknown): string[] {
  const items = Array.isArray(value) ? value : value === undefined ? [] : [value];
  return [...new Set(items.map(asWord).filter((w): w is string => w !== undefined))];
}

/** A whole number ≥ `min` (a numeric string is fine), or undefined. */
export function asWhole(value: unknown, min: number): number | undefined {
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n >= min ? n : undefined;
}

/** true/false, also written as a string ("false", "no"), or undefined. */
export function asFlag(value: unknown): boolean | undefined {
  if (typeof value === 'boolean') return value;
  const text = asWord(value)?.toLowerCase();
  if (text === 'true' || text === 'yes') return true;
  if (text === 'false' || text === 'no') return false;
  return undefined;
}
