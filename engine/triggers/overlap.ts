/**
 * The overlap policies: what a firing may do while a run of its trigger has not finished.
 * `skip` drops it; `queue_one` keeps one waiting (a `queued` firing in the store) and
 * starts it when the active run ends; `parallel` starts every firing.
 *
 * The decision is pure; what it reads — the trigger's unfinished runs, whether a firing
 * already waits — comes from the store, under the trigger's lock (service.ts), so that
 * the nodes of a shared store decide for the cluster: one node at a time, each seeing the
 * runs and the waiting firing the others committed.
 */
import type { Overlap } from '../../core/index.js';

/** `<horde>/<trigger>`. */
export type TriggerKey = string;

export const triggerKey = (hordeId: string, name: string): TriggerKey => `${hordeId}/${name}`;

export type OverlapDecision = { start: true } | { start: false; outcome: 'skipped' | 'queued'; detail: string };

/**
 * What a new firing may do under `overlap`, given the trigger's unfinished runs (`active`)
 * and whether a firing of it already waits (`waiting`). `queued` means: record this one as
 * the waiting firing.
 */
export function decideOverlap(overlap: Overlap, active: readonly string[], waiting: boolean): OverlapDecision {
  if (overlap === 'parallel' || active.length === 0) return { start: true };
  const running = `run ${active.join(', ')} of this trigger has not finished`;
  if (overlap === 'skip') return { start: false, outcome: 'skipped', detail: `${running} (overlap = "skip")` };
  if (waiting) return { start: false, outcome: 'skipped', detail: `${running} and another firing already waits (overlap = "queue_one")` };
  return { start: false, outcome: 'queued', detail: `${running}; this firing waits for it (overlap = "queue_one")` };
}
