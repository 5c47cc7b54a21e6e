/**
 * A loaded chat session: its machine, fed each event before the event is committed (an
 * event the machine refuses is never written), and the log position. Only after the
 * commit do observers hear of the events.
 *
 * Two ways to write: `append` commits at once (an intent — a message, a model call or a
 * tool about to start — must be on disk before it takes effect); `appendSoon` is for a
 * result (a model's answer, a tool's result) that nothing needs on disk before the next
 * intent: it is committed with the next `append`, or at the end of this turn of the event
 * loop, whichever comes first. A tool loop's answer and the intent it leads to are then one
 * transaction (one fsync at FULL) instead of two.
 */
import { KowalskiError } from '../../core/index.js';
import { ChatActor, foldChat } from '../../actors/index.js';
import type { ChatContext, ChatEvent, ChatState } from '../../actors/index.js';
import type { ChatStore } from './chat-store.js';
import type { StoredChatEvent } from './chat-events.js';

export interface LiveSessionDeps {
  store: ChatStore;
  /** Committed events, in order. */
  onCommitted(stored: StoredChatEvent[], state: ChatState): void;
  /** A commit failed: memory is ahead of the disk, so the engine stops. Returns the error to throw. */
  onFatal(err: unknown): Error;
}

export class LiveSession {
  private lastSeq: number;
  /** Applied to the machine, not yet committed (appendSoon). */
  private pending: ChatEvent[] = [];
  /** Rows to write in the next commit, in order (the pending events' and `later`'s). */
  private pendingAlso: (() => void)[] = [];
  private flushScheduled = false;

  private constructor(readonly id: string, private readonly actor: ChatActor, lastSeq: number, private readonly createdAt: number, private readonly deps: LiveSessionDeps) {
    this.lastSeq = lastSeq;
  }

  /** A new session: `session.created` committed (with `also`, rows written in the same transaction). */
  static create(id: string, created: Extract<ChatEvent, { type: 'session.created' }>, at: number, deps: LiveSessionDeps, also?: () => void): LiveSession {
    const live = new LiveSession(id, new ChatActor(id, created), 0, at, deps);
    live.commit([created], also);
    return live;
  }

  /** A session folded from its log; KW_ERR_REPLAY_DIVERGED when the machine refuses an event of it. */
  static load(id: string, deps: LiveSessionDeps): LiveSession | undefined {
    const stored = deps.store.read(id);
    if (stored.length === 0) return undefined;
    const folded = foldChat(id, stored.map((s) => s.event));
    if (!folded.ok) throw new KowalskiError('KW_ERR_REPLAY_DIVERGED', `chat session ${id} event ${folded.index + 1}: ${folded.reason}`);
    return new LiveSession(id, folded.actor, stored.at(-1)!.seq, stored[0]!.at, deps);
  }

  /** The seq of the last event committed (what the store's `last_seq` says once nothing is pending). */
  get committedSeq(): number {
    return this.lastSeq;
  }

  get context(): ChatContext {
    return this.actor.context;
  }

  get state(): ChatState {
    return this.actor.state;
  }

  accepts(event: ChatEvent): boolean {
    return this.actor.accepts(event);
  }

  /**
   * Apply events to the machine and commit them (with `also`, rows written in the same
   * transaction). An event the machine refuses throws KW_ERR_CHAT_REFUSED and nothing is written.
   */
  append(events: ChatEvent[], also?: () => void): StoredChatEvent[] {
    this.check(events);
    for (const e of events) this.actor.send(e);
    return this.commit(events, also);
  }

  /** Like `append`, committed with the next `append` or at the end of this turn of the event loop (the events are applied to the machine now). */
  appendSoon(events: ChatEvent[], also?: () => void): void {
    this.check(events);
    for (const e of events) this.actor.send(e);
    this.pending.push(...events);
    this.later(also);
  }

  /** Write rows in the next commit (after those of the pending events), or now when nothing is pending. */
  later(write?: () => void): void {
    if (write === undefined) return;
    if (this.pending.length === 0) {
      write();
      return;
    }
    this.pendingAlso.push(write);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      try {
        this.flush();
      } catch {
        // onFatal has stopped the engine; the next append reports it.
      }
    });
  }

  /** Commit what `appendSoon` left pending. */
  flush(): void {
    if (this.pending.length > 0) this.commit([]);
  }

  private check(events: ChatEvent[]): void {
    // Events are checked one after the other against the state the earlier ones lead to only when they are sent; a batch is checked against the current state.
    for (const e of events) {
      if (!this.actor.accepts(e)) throw new KowalskiError('KW_ERR_CHAT_REFUSED', `chat session ${this.id}: ${e.type} is not accepted while the session is ${this.actor.state}`);
    }
  }

  /** Commit the pending events and `events` (already applied to the machine) in one transaction. Returns `events` as stored. */
  private commit(events: ChatEvent[], also?: () => void): StoredChatEvent[] {
    const all = this.pending.length === 0 ? events : [...this.pending, ...events];
    const writes = also === undefined ? this.pendingAlso : [...this.pendingAlso, also];
    this.pending = [];
    this.pendingAlso = [];
    let stored: StoredChatEvent[];
    try {
      stored = this.deps.store.append(this.id, this.lastSeq + 1, all, { state: this.actor.state, context: this.actor.context, createdAt: this.createdAt },
        writes.length === 0 ? undefined : () => {
          for (const w of writes) w();
        });
    } catch (err) {
      throw this.deps.onFatal(err);
    }
    this.lastSeq += all.length;
    this.deps.onCommitted(stored, this.actor.state);
    return stored.slice(stored.length - events.length);
  }

  /** Commit what is pending, then stop the machine. */
  stop(): void {
    try {
      this.flush();
    } finally {
      this.actor.stop();
    }
  }
}
