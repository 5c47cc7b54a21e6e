/**
 * What a node of a Postgres store does beside its own runs:
 * - on a beat of a third of its lease, renew its leases and heartbeat;
 * - adopt the unfinished runs no live node holds (their node died and the lease expired,
 *   or it stopped and gave them up), resuming each as a restart would; and so the chat
 *   turns under way;
 * - follow the log for the events other nodes commit, so this node's websocket clients
 *   and waiters see every run (events this node committed itself were announced at their
 *   commit and are not announced again);
 * - carry out the operator actions other nodes forward to it (forwarding.ts);
 * - hand on what other nodes append to chat sessions, for this node's followers.
 *
 * Each of these is woken by a notification (store/pg/listener.ts): a commit, a node's
 * clean stop, a request, an answer. Polling stays as the bounded fallback: slow while the
 * listener is up, fast while it is down, and everything is looked at again when it comes back.
 */
import type { RunState } from '../../actors/index.js';
import type { Clock } from '../base/clock.js';
import type { Observers } from '../observers.js';
import type { EventLog } from '../store/event-log.js';
import { Forwarding } from './forwarding.js';
import type { PostgresBackend } from '../store/pg/backend.js';
import { CHANNELS } from '../store/pg/channels.js';
import type { Channel } from '../store/pg/channels.js';
import { startPgListener } from '../store/pg/listener.js';
import type { ForwardedAction } from '../store/pg/requests.js';
import { every } from '../base/timers.js';
import type { Repeating, Timers } from '../base/timers.js';

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
  /** Go on with at most `limit` chat turns under way that no live node holds (their node died or stopped). Absent: this node adopts none. */
  adoptChats?(limit: number): void;
  /** Go on with the adapters' conversations that no live node answers (their node died). Absent: this node takes none. */
  adoptConversations?(): void;
  /** Another node appended events `first`…`last` to a chat session. */
  chatGrew?(sessionId: string, first: number, last: number): void;
  /** Another node relayed tokens of a turn it runs (payload of `kw_chat_tokens`). */
  chatTokens?(payload: string): void;
  /** Another node granted or revoked a plugin. */
  pluginsChanged?(): void;
  stepsRunning(): number;
  /** Perform an operator action another node forwarded to this one (this node's own action, here). */
  perform(action: ForwardedAction, runId: string, args: Record<string, unknown>): Promise<unknown>;
  /** A beat that failed (the database is unreachable): the engine decides. */
  onError(err: unknown): void;
  /** Polls, ms: `fast` while the listener is down (default 100), `slow` while it is up (default 1000). */
  pollMs?: { fast?: number; slow?: number };
  /** The first wait before the listener reconnects, ms (default 250). */
  relistenMs?: number;
  /** How long a forwarded action waits for the holder's answer, ms (default 10 s). */
  forwardWaitMs?: number;
}

export interface Cluster {
  /** Ask node `to`, which executes `runId`, to perform an operator action there. */
  forward(to: string, runId: string, action: ForwardedAction, args: Record<string, unknown>): Promise<unknown>;
  /** Whether wake-ups arrive (the listener is connected). */
  readonly listening: boolean;
  close(): Promise<void>;
}

/** How many unfinished runs one beat adopts at most. */
const ADOPT_PER_BEAT = 50;

export function startCluster(deps: ClusterDeps): Cluster {
  const { backend, log, observers, clock, timers } = deps;
  const beatMs = Math.max(100, Math.floor(backend.leases.ttlMs / 3));
  const fastMs = deps.pollMs?.fast ?? 100;
  const slowMs = deps.pollMs?.slow ?? 1000;
  let cursor = log.lastGseq();
  /** gseqs this node committed and announced, not yet passed by the follower. */
  const announced = new Set<number>();
  let closed = false;
  let adopting = false;
  const cancels = new Set<() => void>();
  const loops: Repeating[] = [];

  // Registered before any websocket hub, so it runs first for each event.
  const off = observers.on('run:event', ({ stored }) => {
    if (stored.gseq <= cursor) return; // the follower's own, or one it has passed
    // This node's commit. Commits take turns, so every lower gseq is committed: another
    // node's events in between go out first, and a client of every run gets them in order.
    if (stored.gseq - 1 > cursor && !announced.has(stored.gseq - 1)) follow(stored.gseq);
    announced.add(stored.gseq);
  });

  /** `fn`, unless the cluster closed; a throw goes to `onError` (the caller goes on). */
  const guarded = (fn: () => void) => (): void => {
    if (closed) return;
    try {
      fn();
    } catch (err) {
      deps.onError(err);
    }
  };

  /** `fn` every `ms()`, also after a call that threw (a beat that failed while the database was unreachable is tried again at the next one). */
  const repeat = (ms: () => number, fn: () => void): Repeating => {
    const loop = every(timers, clock, ms, guarded(fn));
    loops.push(loop);
    return loop;
  };

  /** Hand on the events other nodes committed, in gseq order, up to (not including) `before`. */
  function follow(before = Infinity): void {
    for (;;) {
      const events = log.readAllAfter(cursor, 500);
      for (const stored of events) {
        if (stored.gseq >= before) return;
        cursor = stored.gseq;
        if (announced.delete(stored.gseq)) continue;
        const state = deps.stateOf(stored.runId);
        if (state !== undefined) observers.emit('run:event', { stored, state });
      }
      if (events.length < 500) return;
    }
  }

  const adopt = (): void => {
    deps.adoptChats?.(ADOPT_PER_BEAT);
    deps.adoptConversations?.();
    const take = deps.adopt;
    if (take === undefined || adopting) return;
    const ids = backend.leases.adoptable(ADOPT_PER_BEAT);
    if (ids.length === 0) return;
    adopting = true;
    void Promise.allSettled(ids.map((id) => take(id))).finally(() => {
      adopting = false;
    });
  };

  const forwarding = new Forwarding({
    requests: backend.requests, nodeId: backend.nodeId, clock, timers, perform: deps.perform,
    waitMs: deps.forwardWaitMs ?? 10_000,
    pollMs: () => (listener.listening ? slowMs : fastMs),
    onError: deps.onError,
  });

  /** `fn` once, soon (several wake-ups in one turn of the event loop are one call). */
  const soon = (fn: () => void): (() => void) => {
    const call = guarded(fn);
    let armed = false;
    return () => {
      if (armed || closed) return;
      armed = true;
      const cancel = timers.at(clock.now(), () => {
        cancels.delete(cancel);
        armed = false;
        call();
      });
      cancels.add(cancel);
    };
  };
  const followSoon = soon(follow);
  const adoptSoon = soon(adopt);
  const serveSoon = soon(() => forwarding.serve());

  const listener = startPgListener({
    url: backend.url, applicationName: `kowalski ${backend.nodeId} listener`, clock, timers,
    ...(deps.relistenMs === undefined ? {} : { retryMs: deps.relistenMs }),
    onNotify(channel: Channel, payload: string) {
      if (channel === CHANNELS.log && payload !== backend.nodeId) followSoon();
      else if (channel === CHANNELS.leases && payload !== backend.nodeId) adoptSoon();
      else if (channel === CHANNELS.requests && payload === backend.nodeId) serveSoon();
      else if (channel === CHANNELS.answers) forwarding.answered(Number(payload));
      else if (channel === CHANNELS.chat) {
        const [from, sessionId, first, last] = payload.split(' ');
        if (from !== backend.nodeId && sessionId !== undefined) guarded(() => deps.chatGrew?.(sessionId, Number(first), Number(last)))();
      } else if (channel === CHANNELS.chatTokens) guarded(() => deps.chatTokens?.(payload))();
      else if (channel === CHANNELS.plugins && payload !== backend.nodeId) guarded(() => deps.pluginsChanged?.())();
    },
    onState(listening) {
      // The polls change pace (fast while cut off, slow while listening), and what was missed meanwhile is looked at.
      refollow.rearm();
      forwarding.lookAll();
      if (!listening) return;
      followSoon();
      adoptSoon();
      serveSoon();
      // A grant or revoke another node made while this one was not listening (just started, or cut off) is read now.
      guarded(() => deps.pluginsChanged?.())();
    },
  });

  repeat(() => beatMs, () => {
    backend.leases.heartbeat(deps.stepsRunning());
    adopt();
    forwarding.serve();
  });
  const refollow = repeat(() => (listener.listening ? slowMs : fastMs), follow);

  return {
    forward: (to, runId, action, args) => forwarding.ask(to, runId, action, args),
    get listening() {
      return listener.listening;
    },
    async close() {
      closed = true;
      off();
      for (const cancel of cancels) cancel();
      cancels.clear();
      for (const loop of loops) loop.stop();
      await listener.close();
    },
  };
}
