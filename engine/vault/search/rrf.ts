/**
 * Reciprocal rank fusion: several ranked lists become one, each item scored
 * Σ 1 / (k + rank) over the lists it is in (rank from 1). It needs no comparable scores,
 * which a bm25 and a cosine distance are not (Cormack, Clarke & Büttcher, SIGIR 2009).
 */

/** The constant of the original paper; larger values flatten the head of each list. */
export const RRF_K = 60;

export interface Fused<T> {
  key: string;
  score: number;
  /** The item from each list it was found in, by the list's name. */
  from: Partial<Record<string, T>>;
}

/** The items of every named list, merged by key and sorted by fused score, best first (ties: the order of first appearance). */
export function fuseRanks<T>(lists: Record<string, readonly T[]>, keyOf: (item: T) => string, k = RRF_K): Array<Fused<T>> {
  const byKey = new Map<string, Fused<T>>();
  for (const [name, items] of Object.entries(lists)) {
    items.forEach((item, i) => {
      const key = keyOf(item);
      const entry = byKey.get(key) ?? { key, score: 0, from: {} };
      if (entry.from[name] !== undefined) return; // a list names an item once: its best rank counts
      entry.score += 1 / (k + i + 1);
      entry.from[name] = item;
      byKey.set(key, entry);
    });
  }
  return [...byKey.values()].sort((a, b) => b.score - a.score);
}
