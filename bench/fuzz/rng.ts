/**
 * The fuzzers' seeded randomness and mutators (fast-check is not a dependency): every input
 * is drawn from its own generator, seeded by (seed, index), so `--seed=S --from=I --n=1`
 * draws input I again.
 */

export class Rng {
  private s: number;

  constructor(seed: number, index = 0) {
    // splitmix-like mixing of the two, so neighbouring indices are unrelated.
    let h = (seed ^ Math.imul(index + 0x9e3779b9, 0x85ebca6b)) >>> 0;
    h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
    h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0;
    this.s = (h ^ (h >>> 16)) >>> 0;
  }

  /** mulberry32: a float in [0, 1). */
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)]!;
  }

  /** A length with small ones common and large ones possible (up to `max`). */
  size(max: number): number {
    return Math.min(max, Math.floor(Math.exp(this.next() * Math.log(max + 1))));
  }
}

/** Odd strings: control characters, lone surrogates, right-to-left marks, long runs, number edges. */
export const NASTY = [
  '', ' ', '\0', '\n', '\r\n', '\t', '"', "'", '\\', '\\u0000', '\uFEFF', '\uD800', '\uDFFF', '\u202E', '\u2028', 'é', '𝕏', '🦆',
  '../', '..\\', '/etc/passwd', '%2e%2e%2f', '%00', '${x}', '{{x}}', '{x}', '__proto__', 'constructor', 'prototype',
  '-1', '0', '1e309', '-0', 'NaN', 'Infinity', '9007199254740993', '0x10', 'true', 'null', '[]', '{}',
];

/** A random string: printable ASCII, nasty pieces and a long run now and then. */
export function randomString(rng: Rng, max = 40): string {
  if (rng.chance(0.2)) return rng.pick(NASTY);
  if (rng.chance(0.005)) return rng.pick(['a', 'é', '/', '{', '[', '"']).repeat(rng.size(200_000));
  let s = '';
  const n = rng.size(max);
  for (let i = 0; i < n; i++) s += rng.chance(0.9) ? String.fromCharCode(32 + rng.int(95)) : rng.pick(NASTY);
  return s;
}

/** `text` changed once or a few times: a piece inserted (from `dictionary` or random), deleted, duplicated, or a character swapped. */
export function mutateText(text: string, rng: Rng, dictionary: readonly string[]): string {
  let s = text;
  const rounds = 1 + rng.size(4);
  for (let r = 0; r < rounds; r++) {
    const at = rng.int(s.length + 1);
    const len = rng.size(Math.max(1, s.length - at));
    switch (rng.int(6)) {
      case 0: s = s.slice(0, at) + rng.pick(dictionary) + s.slice(at); break;
      case 1: s = s.slice(0, at) + randomString(rng) + s.slice(at); break;
      case 2: s = s.slice(0, at) + s.slice(at + len); break;
      case 3: s = s.slice(0, at) + s.slice(at, at + len).repeat(1 + rng.size(5)) + s.slice(at); break;
      case 4: s = s.slice(0, at) + String.fromCharCode(rng.int(0x3000)) + s.slice(at + 1); break;
      default: {
        // Swap a line with another: keys move between tables.
        const lines = s.split('\n');
        const a = rng.int(lines.length);
        const b = rng.int(lines.length);
        [lines[a], lines[b]] = [lines[b]!, lines[a]!];
        s = lines.join('\n');
      }
    }
  }
  return s;
}

/** `bytes` changed: bits flipped, bytes set to edge values, pieces cut, copied or zeroed. */
export function mutateBytes(bytes: Uint8Array, rng: Rng): Uint8Array {
  let b = Uint8Array.from(bytes);
  const rounds = 1 + rng.size(6);
  for (let r = 0; r < rounds && b.length > 0; r++) {
    const at = rng.int(b.length);
    switch (rng.int(6)) {
      case 0: b[at]! ^= 1 << rng.int(8); break;
      case 1: b[at] = rng.pick([0, 1, 0x7f, 0x80, 0xff, 0x2e, 0x2f, 0x5c]); break;
      case 2: {
        // A little-endian 16/32-bit field set to an edge value (sizes, offsets, counts).
        const v = rng.pick([0, 1, 0xffff, 0xffffffff, 0x7fffffff, b.length, b.length + 1]);
        for (let k = 0; k < (rng.chance(0.5) ? 2 : 4) && at + k < b.length; k++) b[at + k] = (v >>> (8 * k)) & 0xff;
        break;
      }
      case 3: b = b.slice(0, at); break;
      case 4: {
        const len = rng.size(Math.min(256, b.length - at));
        const copy = b.slice(at, at + len);
        const to = rng.int(b.length);
        const out = new Uint8Array(b.length + copy.length);
        out.set(b.slice(0, to));
        out.set(copy, to);
        out.set(b.slice(to), to + copy.length);
        b = out;
        break;
      }
      default: b.fill(0, at, at + rng.size(64));
    }
  }
  return b;
}
