/**
 * A loaded chat session: its machine, fed each event before the event is committed (an
 * event the machine refuses is never written), and the log position. Only after the
 * commit do observers hear of the events.
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

  private constructor(readonly id: string, private readonly actor: ChatActor, lastSeq: number, private readonly createdAt: number, private readonly deps: LiveSessionDeps) {
    this.lastSeq = lastSeq;
  }

  /** A new session: `session.created` committed. */
  static create(id: string, created: Extract<ChatEvent, { type: 'session.created' }>, at: number, deps: LiveSessionDeps): LiveSession {
    const live = new LiveSession(id, new ChatActor(id, created), 0, at, deps);
    live.commit([created]);
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
    for (const e of events) {
      if (!this.actor.accepts(e)) throw new KowalskiError('KW_ERR_CHAT_REFUSED', `chat session ${this.id}: ${e.type} is not accepted while the session is ${this.actor.state}`);
    }
    return this.commit(events, also);
  }

  private commit(events: ChatEvent[], also?: () => void): StoredChatEvent[] {
    for (const e of events) this.actor.send(e);
    let stored: StoredChatEvent[];
    try {
      stored = this.deps.store.append(this.id, this.lastSeq + 1, events, { state: this.actor.state, context: this.actor.context, createdAt: this.createdAt }, also);
    } catch (err) {
      throw this.deps.onFatal(err);
    }
    this.lastSeq += events.length;
    this.deps.onCommitted(stored, this.actor.state);
    return stored;
  }

  stop(): void {
    this.actor.stop();
  }
}
