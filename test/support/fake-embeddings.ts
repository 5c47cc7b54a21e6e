/** The vectors fake model servers answer for embeddings: small, and the same for the same text. */

/** [characters, words, vowels, a checksum in [0, 1)] of the text. */
export function fakeVector(text: string): number[] {
  let sum = 0;
  for (const ch of text) sum = (sum * 31 + (ch.codePointAt(0) ?? 0)) % 1_000_003;
  return [text.length, text.split(/\s+/).filter((w) => w !== '').length, (text.match(/[aeiou]/gi) ?? []).length, sum / 1_000_003];
}
