/**
 * Group commit. Events produced in the same tick, by any number of runs, are written
 * in one transaction together with the projection rows they change; only after that
 * transaction has committed does each batch's `onCommitted` run its effects.
 */
import type { RunContext, RunEvent, RunState } from '../../actors/index.js';
import type { Clock } from '../base/clock.js';
import type { CrashHook } from '../base/crash.js';
import type { StoredEvent } from '../store/events.js';
import type { IntakeHold } from './intake-hold.js';
import type { RunLeases } from '../store/leases.js';
import type { EventLog } from '../store/event-log.js';
import type { Projections } from '../store/projections.js';
import type { RunStore } from '../store/run-store.js';

export interface Batch {
  runId: string;
  /** The seq of the first event (the run's previous last seq + 1). */
  firstSeq: number;
  events: RunEvent[];
  /** The run's state before these events (what its row says until they are written), and its state and context after them (what the projections must say). */
  before: RunState;
  state: RunState;
  context: RunContext;
  onCommitted(stored: StoredEvent[]): void;
  /** Other rows that must be on disk exactly when these events are (a trigger's firing record): run inside the same transaction. */
  alsoWrite?: () => void;
  /** The transaction failed: nothing of this batch is on disk, and no effect of it runs. */
  onFailed?(err: unknown): void;
}

/** A run's row as one commit leaves it: the state before the commit's first batch of it, and after its last. */
interface RunRowChange {
  before: RunState;
  lastSeq: number;
  state: RunState;
  context: RunContext;
  /** The commit creates the run: its row is inserted as the commit leaves it. */
  created: Created | undefined;
}

type Created = Extract<RunEvent, { type: 'run.created' }>;

export interface CommitterDeps {
  /** The store whose transaction each group commit is. */
  store: Pick<RunStore, 'transaction'>;
  /** Each commit is fenced by the leases of the runs it writes (a no-op with one node). */
  leases: Pick<RunLeases, 'fence'>;
  log: EventLog;
  projections: Projections;
  clock: Clock;
  crash: CrashHook;
  /** A commit that throws leaves memory ahead of the disk: the engine must stop. Returns the error the waiting callers get. */
  onFatal(err: unknown): Error;
  /** May hold a commit back for a few turns while webhook deliveries are arriving (bounded). */
  hold?: IntakeHold;
}

export class Committer {
  private pending: Batch[] = [];
  private scheduled = false;
  /** Which scheduled turn is current (a flush from outside ends the turns scheduled before it). */
  private turn = 0;
  private readonly write: (batches: Batch[], at: number) => StoredEvent[][];
  /** Transactions committed, and batches in them (for benchmarks and the doctor). */
  readonly stats = { commits: 0, batches: 0, events: 0 };
  /** Set by the first failed commit: memory is then ahead of the disk, so nothing more is written (a later batch would leave a gap in its run's seqs). */
  private stopped: Error | undefined;

  constructor(private readonly deps: CommitterDeps) {
    this.write = deps.store.transaction((batches: Batch[], at: number) => {
      const out: StoredEvent[][] = [];
      deps.leases.fence(batches);
      // Each run's row is written once per commit, however many of its batches the commit holds.
      const rows = new Map<string, RunRowChange>();
      for (const b of batches) {
        const stored: StoredEvent[] = [];
        let seq = b.firstSeq;
        for (const event of b.events) {
          const gseq = deps.log.append(b.runId, seq, at, event);
          deps.projections.apply(b.runId, seq, at, event);
          stored.push({ gseq, runId: b.runId, seq, at, event });
          seq++;
        }
        if (b.events.length > 0) {
          const first = b.events[0]!;
          const row = rows.get(b.runId);
          rows.set(b.runId, {
            before: row?.before ?? b.before, lastSeq: seq - 1, state: b.state, context: b.context,
            created: row?.created ?? (first.type === 'run.created' ? first : undefined),
          });
        }
        b.alsoWrite?.();
        out.push(stored);
      }
      for (const [runId, r] of rows) deps.projections.settle(runId, r.lastSeq, at, r.before, r.state, r.context, r.created);
      return out;
    });
  }

  enqueue(batch: Batch): void {
    this.pending.push(batch);
    if (this.scheduled) return;
    this.scheduled = true;
    this.deps.hold?.begin();
    const turn = ++this.turn;
    const check = (): void => {
      if (turn !== this.turn || !this.scheduled) return;
      if (this.deps.hold?.shouldWait() === true) setImmediate(check);
      else this.flush();
    };
    setImmediate(check);
  }

  /** Commit everything pending now, then run the callbacks. */
  flush(): void {
    this.scheduled = false;
    const batches = this.pending;
    if (batches.length === 0) return;
    this.pending = [];
    if (this.stopped !== undefined) {
      for (const b of batches) b.onFailed?.(this.stopped);
      return;
    }
    this.deps.crash('before-commit');
    let stored: StoredEvent[][];
    try {
      stored = this.write(batches, this.deps.clock.now());
    } catch (err) {
      this.stopped = this.deps.onFatal(err);
      for (const b of batches) b.onFailed?.(this.stopped);
      return;
    }
    this.stats.commits++;
    this.stats.batches += batches.length;
    for (const s of stored) this.stats.events += s.length;
    this.deps.crash('after-commit');
    batches.forEach((b, i) => b.onCommitted(stored[i]!));
  }
}
