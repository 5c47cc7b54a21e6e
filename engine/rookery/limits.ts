/** What the Rookery reads at most: a draft is bounded before it is normalised, rendered or written. */

/** The most characters of draft JSON (or of text to parse a draft from): 1 MB. */
export const MAX_DRAFT_CHARS = 1_000_000;

/** The most steps a draft may have. */
export const MAX_DRAFT_STEPS = 200;

/** The most characters of a horde id or a step name (each is a file or folder name). */
export const MAX_NAME_CHARS = 64;
