/**
 * The check a store copy makes on its target before it commits: every run's events,
 * folded through the run machine, give the state its `runs` row holds, and the row's
 * `last_seq` is the log's last event (as testkit/crash/support.ts checks after a crash).
 * Events are read a page at a time in (run_id, seq) order, so memory holds one run's log
 * and the runs' states, never the whole log.
 */
import { foldRun } from '../../actors/index.js';
import type { RunEvent } from '../../actors/index.js';
import { KowalskiError } from '../../core/index.js';
import { decodeEvent } from './events.js';
import type { CopyEnd } from './copy-ends.js';
import { COPY_TABLES } from './copy-tables.js';
import type { CopyRow, CopyTable } from './copy-tables.js';

const table = (name: string): CopyTable => COPY_TABLES.find((t) => t.name === name)!;

/** Every row of `t` in `order`, a page at a time. */
export function* pages(end: CopyEnd, t: CopyTable, order: readonly string[], size: number): Generator<CopyRow[]> {
  let after: CopyRow | undefined;
  for (;;) {
    const rows = end.page(t, order, after, size);
    if (rows.length === 0) return;
    yield rows;
    after = rows[rows.length - 1];
  }
}

/** Folds every run of `end`; throws KW_ERR_STORE_COPY_MISMATCH at the first run whose log and row disagree. Returns how many runs it checked. */
export function verifyFolds(end: CopyEnd, pageSize: number): number {
  const rows = new Map<string, { state: string; lastSeq: number }>();
  for (const page of pages(end, table('runs'), ['id'], pageSize)) {
    for (const r of page) rows.set(r.id as string, { state: r.state as string, lastSeq: r.last_seq as number });
  }
  const mismatch = (runId: string, what: string) =>
    new KowalskiError('KW_ERR_STORE_COPY_MISMATCH', `after copying into ${end.where}, run ${runId} ${what}; nothing was copied (the copy was rolled back)`);
  let checked = 0;
  const check = (runId: string, events: RunEvent[], lastSeq: number): void => {
    const row = rows.get(runId);
    if (row === undefined) throw mismatch(runId, `has ${events.length} events but no row in runs`);
    const folded = foldRun(runId, events);
    if (!folded.ok) throw mismatch(runId, `does not replay: event ${folded.index + 1}: ${folded.reason}`);
    const state = folded.actor.state;
    folded.actor.stop();
    if (state !== row.state) throw mismatch(runId, `folds to ${state}, but its runs row says ${row.state}`);
    if (lastSeq !== row.lastSeq) throw mismatch(runId, `has its last event at ${lastSeq}, but its runs row says ${row.lastSeq}`);
    rows.delete(runId);
    checked++;
  };
  let current: { runId: string; events: RunEvent[]; lastSeq: number } | undefined;
  for (const page of pages(end, table('events'), ['run_id', 'seq'], pageSize)) {
    for (const e of page) {
      const runId = e.run_id as string;
      if (current?.runId !== runId) {
        if (current !== undefined) check(current.runId, current.events, current.lastSeq);
        current = { runId, events: [], lastSeq: 0 };
      }
      current.events.push(decodeEvent(runId, e.seq as number, e.type as string, e.v as number, e.data as string));
      current.lastSeq = e.seq as number;
    }
  }
  if (current !== undefined) check(current.runId, current.events, current.lastSeq);
  const [orphan] = rows.keys();
  if (orphan !== undefined) throw mismatch(orphan, 'has a runs row but no events');
  return checked;
}
