/**
 * Long work done on an operator's request (a vault reindex, a plugin rescan), told to
 * observers as `work:progress` so the server's websocket can show it as a bar: the work's
 * `Progress` reports, throttled — a report held back is sent once the gap has passed, so a
 * bar never stays behind during a slow step — then always one last report with
 * `finished: true` when the work ended, well or not. Time is the engine's clock and timers.
 */
import type { Progress, ProgressReport } from '../contract/progress.js';
import type { WorkOp, WorkProgress } from '../contract/frames.js';
import { toPlainError } from '../core/index.js';
import type { Timers } from './base/timers.js';

/** Least time between two reports of one phase told to observers, ms (first, phase changes and the last always pass). */
export const WORK_PROGRESS_GAP_MS = 100;

export interface WorkReporting {
  emit(p: WorkProgress): void;
  /** The clock in ms. */
  now(): number;
  timers: Timers;
  /** Default WORK_PROGRESS_GAP_MS. */
  gapMs?: number;
}

/**
 * Run `work` with a `Progress` whose reports go to `emit` (throttled), then tell it the
 * finish: the last report seen with `total` set to `done` when the work succeeded (all of it
 * is done), or as it was with the failure's code. Resolves or rejects as `work` does.
 */
export async function reportWork<T>(op: WorkOp, r: WorkReporting, work: (onProgress: Progress) => Promise<T>): Promise<T> {
  const gap = r.gapMs ?? WORK_PROGRESS_GAP_MS;
  let last: ProgressReport = { phase: 'start', done: 0, total: null };
  /** When the last report went out, and its phase. */
  let sent: { at: number; phase: string } | undefined;
  /** The latest report held back, sent once the gap since the last one sent has passed unless a newer one goes first. */
  let held: ProgressReport | undefined;
  let cancel: (() => void) | undefined;
  const send = (p: ProgressReport): void => {
    cancel?.();
    cancel = undefined;
    held = undefined;
    sent = { at: r.now(), phase: p.phase };
    r.emit({ op, ...p, finished: false });
  };
  const onProgress: Progress = (p) => {
    last = p;
    const phaseDone = p.total !== null && p.done >= p.total;
    if (sent === undefined || sent.phase !== p.phase || phaseDone || r.now() - sent.at >= gap) {
      send(p);
      return;
    }
    held = p;
    // Timed from the report that went out, so the held one passes when its timer fires.
    cancel ??= r.timers.at(sent.at + gap, () => {
      cancel = undefined;
      if (held !== undefined) send(held);
    });
  };
  try {
    const result = await work(onProgress);
    cancel?.();
    r.emit({ op, phase: last.phase, done: last.done, total: last.done, finished: true });
    return result;
  } catch (err) {
    cancel?.();
    r.emit({ op, phase: last.phase, done: last.done, total: last.total, finished: true, error: toPlainError(err).code });
    throw err;
  }
}
