/**
 * What a node of a Postgres store does beside its own runs, on a beat of a third of its
 * lease: renew its leases and heartbeat; adopt the unfinished runs no live node holds
 * (their node died: the lease expired), resuming each as a restart would; and follow the
 * log for the events other nodes commit, so this node's websocket clients and waiters
 * see every run. The follower polls (a few times per lease); events this node committed
 * itself were announced at their commit and are not announced again.
 */
import type { RunState } from '../actors/index.js';
import type { Clock } from './clock.js';
import type { Observers } from './observers.js';
import type { EventLog } from './store/event-log.js';
import type { PostgresBackend } from './store/pg/backend.js';
import type { Timers } from './triggers/timers.js';

export interface ClusterDeps {
  backend: PostgresBackend;
  log: EventLog;
  observers: Observers;
  clock: Clock;
  timers: Timers;
  /** The run's state as its projection says (for another node's events). */
  stateOf(runId: string): RunState | undefined;
  /** Resume an unfinished run this node may take (claims it; a run another node took first is left alone). Absent: this node adopts nothing. */
  adopt?(runId: string): Promise<void>;
  stepsRunning(): number;
  /** A beat that failed (the database is unreachable): the engine decides. */
  onError(err: unknown): void;
  /** How often the follower reads the log, ms (default 100). */
  followMs?: number;
}

export interface Cluster {
  close(): void;
}

/** How many unfinished runs one beat adopts at most. */
const ADOPT_PER_BEAT = 50;

export function startCluster(deps: ClusterDeps): Cluster {
  const { backend, log, observers, clock, timers } = deps;
  const beatMs = Math.max(100, Math.floor(backend.leases.ttlMs / 3));
  const followMs = deps.followMs ?? 100;
  let cursor = log.lastGseq();
  /** gseqs this node committed and announced, not yet passed by the follower. */
  const announced = new Set<number>();
  let closed = false;
  let adopting = false;
  const cancels = new Set<() => void>();

  const off = observers.on('run:event', ({ stored }) => {
    if (stored.gseq > cursor) announced.add(stored.gseq);
  });

  const every = (ms: number, fn: () => void): void => {
    const arm = (): void => {
      const cancel = timers.at(clock.now() + ms, () => {
        cancels.delete(cancel);
        if (closed) return;
        try {
          fn();
        } catch (err) {
          deps.onError(err);
          return;
        }
        arm();
      });
      cancels.add(cancel);
    };
    arm();
  };

  const follow = (): void => {
    for (;;) {
      const events = log.readAllAfter(cursor, 500);
      for (const stored of events) {
        cursor = stored.gseq;
        if (announced.delete(stored.gseq)) continue;
        const state = deps.stateOf(stored.runId);
        if (state !== undefined) observers.emit('run:event', { stored, state });
      }
      if (events.length < 500) return;
    }
  };

  const adopt = (): void => {
    const take = deps.adopt;
    if (take === undefined || adopting) return;
    const ids = backend.leases.adoptable(ADOPT_PER_BEAT);
    if (ids.length === 0) return;
    adopting = true;
    void Promise.allSettled(ids.map((id) => take(id))).finally(() => {
      adopting = false;
    });
  };

  every(beatMs, () => {
    backend.leases.heartbeat(deps.stepsRunning());
    adopt();
  });
  every(followMs, follow);

  return {
    close() {
      closed = true;
      off();
      for (const cancel of cancels) cancel();
      cancels.clear();
    },
  };
}
