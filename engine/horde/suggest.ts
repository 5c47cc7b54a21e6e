/** "Did you mean …?" for a misspelt horde id, the way the CLI's parser answers a misspelt command. */

/** Optimal string alignment distance: insertions, deletions, substitutions and swaps of two neighbours cost 1. */
export function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The ids closest to `ref` (case ignored): within 40% of its length in edits (at least 1,
 * at most 3), or one that starts with it (a prefix of 3 or more letters); nearest first, ties by id.
 */
export function closestIds(ref: string, ids: readonly string[]): string[] {
  const r = ref.toLowerCase();
  const limit = Math.min(3, Math.max(1, Math.floor(r.length * 0.4)));
  return [...new Set(ids)]
    .map((id) => {
      const l = id.toLowerCase();
      return { id, distance: r.length >= 3 && l.startsWith(r) ? 0.5 : editDistance(r, l) };
    })
    .filter((c) => c.distance <= limit && c.id !== ref)
    .sort((x, y) => x.distance - y.distance || x.id.localeCompare(y.id))
    .map((c) => c.id);
}

/** `; did you mean "x"?` (or `"x" or "y"`), or '' when nothing is close. */
export function didYouMean(ref: string, ids: readonly string[]): string {
  const close = closestIds(ref, ids).slice(0, 2);
  return close.length === 0 ? '' : `; did you mean ${close.map((id) => `"${id}"`).join(' or ')}?`;
}
