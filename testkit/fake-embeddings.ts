/**
 * The vectors fake model servers answer for embeddings: small, and the same for the same
 * text. By default `fakeVector`; a test that needs meaning scripts it with `conceptVectors`.
 */

/** How a fake server turns one text into its vector. */
export type FakeEmbed = (text: string) => number[];

/** [characters, words, vowels, a checksum in [0, 1)] of the text. */
export function fakeVector(text: string): number[] {
  let sum = 0;
  for (const ch of text) sum = (sum * 31 + (ch.codePointAt(0) ?? 0)) % 1_000_003;
  return [text.length, text.split(/\s+/).filter((w) => w !== '').length, (text.match(/[aeiou]/gi) ?? []).length, sum / 1_000_003];
}

/**
 * Vectors with meaning the test chooses: one dimension per concept, counting the words of
 * the text that belong to it (case-insensitive, whole words), plus a last dimension of
 * 0.01 so no vector is zero. `{ cats: ['feline', 'kitten'], dogs: ['puppy'] }` makes
 * "a feline" and "kitten food" near each other and far from "puppy".
 */
export function conceptVectors(concepts: Record<string, readonly string[]>): FakeEmbed {
  const groups = Object.values(concepts).map((words) => new Set(words.map((w) => w.toLowerCase())));
  return (text) => {
    const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
    return [...groups.map((g) => words.filter((w) => g.has(w)).length), 0.01];
  };
}
