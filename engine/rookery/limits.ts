/** What the Rookery reads at most: a draft is bounded before it is normalised, rendered or written. */
import { KowalskiError } from '../../core/index.js';

/** The most characters of draft JSON (or of text to parse a draft from): 1 MB. */
export const MAX_DRAFT_CHARS = 1_000_000;

/** The most steps a draft may have. */
export const MAX_DRAFT_STEPS = 200;

/** The most edges a draft may write (a step with several ways out, a few loops back: 5 a step). */
export const MAX_DRAFT_EDGES = 1_000;

/** The most triggers a draft may have. */
export const MAX_DRAFT_TRIGGERS = 50;

/** The deepest a draft's values nest (draft → steps → a step → inputs → an input → options is 5). */
export const MAX_DRAFT_DEPTH = 32;

/** The most characters of a horde id or a step name (each is a file or folder name). */
export const MAX_NAME_CHARS = 64;

/** The lists of a raw draft and their bounds: `steps` (or 1.x `penguins`), 1.x `pipeline`, `edges`, `triggers`. */
const LIST_BOUNDS: readonly (readonly [key: string, max: number, what: string])[] = [
  ['steps', MAX_DRAFT_STEPS, 'steps'],
  ['penguins', MAX_DRAFT_STEPS, 'steps (penguins)'],
  ['pipeline', MAX_DRAFT_STEPS, 'pipeline entries'],
  ['edges', MAX_DRAFT_EDGES, 'edges'],
  ['triggers', MAX_DRAFT_TRIGGERS, 'triggers'],
];

/**
 * Refuse a raw draft (before it is read) whose lists are longer than a horde may be:
 * counted, not read, so a draft of 20,000 steps costs nothing. Throws KW_ERR_DRAFT_TOO_LARGE.
 */
export function assertRawBounds(raw: Readonly<Record<string, unknown>>): void {
  for (const [key, max, what] of LIST_BOUNDS) {
    const value = raw[key];
    if (Array.isArray(value) && value.length > max) {
      throw new KowalskiError('KW_ERR_DRAFT_TOO_LARGE', `the draft has ${value.length} ${what} (${key}); a horde may have at most ${max}`);
    }
  }
  assertShallow(raw);
}

/**
 * Refuse values nested deeper than MAX_DRAFT_DEPTH, walked without recursion; the walk stops
 * at the first value too deep, so it costs no more than the draft's size.
 */
function assertShallow(raw: unknown): void {
  const stack: { value: unknown; depth: number; at: string }[] = [{ value: raw, depth: 0, at: 'the draft' }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, depth, at } = item;
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_DRAFT_DEPTH) {
      throw new KowalskiError('KW_ERR_DRAFT_TOO_LARGE', `the draft nests deeper than ${MAX_DRAFT_DEPTH} levels (at ${at})`);
    }
    for (const [key, child] of Object.entries(value)) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: depth + 1, at: Array.isArray(value) ? `${at}[${key}]` : `${at}.${key}` });
    }
  }
}
