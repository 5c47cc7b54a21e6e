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
}
