/**
 * Which runs of each trigger are still going, and the one firing a `queue_one` trigger
 * may hold back: the bookkeeping behind the overlap policies. `skip` drops a firing
 * while a run of the trigger is active; `queue_one` keeps at most one waiting and starts
 * it when the active run ends; `parallel` starts every firing.
 */
import type { Overlap } from '../../core/index.js';

/** `<horde>/<trigger>`. */
export type TriggerKey = string;

export const triggerKey = (hordeId: string, name: string): TriggerKey => `${hordeId}/${name}`;

/** A firing held back by `queue_one`, started when the active run ends. */
export interface Waiting {
  key: string;
  input: Record<string, string>;
  detail?: string;
}

export type OverlapDecision = { start: true } | { start: false; outcome: 'skipped' | 'queued'; detail: string };

export class OverlapBook {
  private readonly active = new Map<TriggerKey, Set<string>>();
  private readonly waiting = new Map<TriggerKey, Waiting>();
  /** Run id → its trigger. */
  private readonly owner = new Map<string, TriggerKey>();

  started(trigger: TriggerKey, runId: string): void {
    let runs = this.active.get(trigger);
    if (runs === undefined) {
      runs = new Set();
      this.active.set(trigger, runs);
    }
    runs.add(runId);
    this.owner.set(runId, trigger);
  }

  /**
   * A run of the trigger is being started (its commit is on the way): it counts as active
   * at once, so a firing in the same moment sees it. Settle with the run id, or undefined
   * when the start failed.
   */
  starting(trigger: TriggerKey): (runId: string | undefined) => void {
    const placeholder = `starting:${(this.nextPlaceholder += 1)}`;
    this.started(trigger, placeholder);
    return (runId) => {
      this.ended(placeholder);
      if (runId !== undefined) this.started(trigger, runId);
    };
  }

  private nextPlaceholder = 0;

  /** A run ended: the trigger it belonged to, if any (so its waiting firing can start). */
  ended(runId: string): TriggerKey | undefined {
    const trigger = this.owner.get(runId);
    if (trigger === undefined) return undefined;
    this.owner.delete(runId);
    this.active.get(trigger)?.delete(runId);
    return trigger;
  }

  activeRuns(trigger: TriggerKey): string[] {
    return [...(this.active.get(trigger) ?? [])];
  }

  /** What a new firing may do under `overlap`. Holding one back (queue_one) records it here. */
  decide(trigger: TriggerKey, overlap: Overlap, firing: Waiting): OverlapDecision {
    const runs = this.activeRuns(trigger);
    if (overlap === 'parallel' || runs.length === 0) return { start: true };
    const running = `run ${runs.join(', ')} of this trigger has not finished`;
    if (overlap === 'skip') return { start: false, outcome: 'skipped', detail: `${running} (overlap = "skip")` };
    if (this.waiting.has(trigger)) {
      return { start: false, outcome: 'skipped', detail: `${running} and another firing already waits (overlap = "queue_one")` };
    }
    this.waiting.set(trigger, firing);
    return { start: false, outcome: 'queued', detail: `${running}; this firing waits for it (overlap = "queue_one")` };
  }

  /** Restore a firing that was waiting when kowalski stopped. */
  hold(trigger: TriggerKey, firing: Waiting): void {
    this.waiting.set(trigger, firing);
  }

  /** The waiting firing, taken, once no run of the trigger is active. */
  takeWaiting(trigger: TriggerKey): Waiting | undefined {
    if (this.activeRuns(trigger).length > 0) return undefined;
    const w = this.waiting.get(trigger);
    this.waiting.delete(trigger);
    return w;
  }

  /** Forget a trigger's waiting firing (it was switched off or removed). */
  dropWaiting(trigger: TriggerKey): Waiting | undefined {
    const w = this.waiting.get(trigger);
    this.waiting.delete(trigger);
    return w;
  }
}
