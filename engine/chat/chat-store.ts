/**
 * A chat session's log and its projection row, written together: each append is one
 * transaction holding the events, the `chat_sessions` row they lead to, and any row that
 * must be on disk exactly when they are (the trace of a model call that just ended).
 * The tables are the data folder's SQLite or the Postgres store the nodes share (chat-tables.ts).
 */
import type { ChatContext, ChatEvent, ChatState } from '../../actors/index.js';
import type { Clock } from '../base/clock.js';
import type { ChatEventRow, ChatQueries, ChatSessionRow } from '../store/sql/chat.js';
import type { ChatTables } from './chat-tables.js';
import { chatEnvelope } from './chat-events.js';
import type { StoredChatEvent } from './chat-events.js';

export interface ChatSnapshot {
  state: ChatState;
  context: ChatContext;
  createdAt: number;
}

export class ChatStore {
  private readonly q: ChatQueries;
  private readonly write: (sessionId: string, firstSeq: number, events: readonly ChatEvent[], snapshot: ChatSnapshot, at: number, also?: () => void) => StoredChatEvent[];

  constructor(tables: ChatTables, private readonly clock: Clock) {
    this.q = tables.chat;
    const leases = tables.leases;
    this.write = tables.transaction((sessionId: string, firstSeq: number, events: readonly ChatEvent[], snapshot: ChatSnapshot, at: number, also?: () => void) => {
      // On a shared store, a turn's appends are fenced: a node that lost the session to another writes nothing into it.
      if (leases?.holds(sessionId) === true) leases.fence(sessionId);
      also?.();
      const stored = events.map((event, i) => {
        const { type, v, data } = chatEnvelope.encode(event);
        this.q.append(sessionId, firstSeq + i, type, v, at, data);
        return { sessionId, seq: firstSeq + i, at, event };
      });
      this.q.upsertSession(rowOf(sessionId, snapshot, firstSeq + events.length - 1, at));
      if (events.length > 0) tables.announce?.(sessionId, firstSeq, firstSeq + events.length - 1);
      return stored;
    });
  }

  /** Append events (seq from `firstSeq`) with the projection of the state they lead to, in one transaction. */
  append(sessionId: string, firstSeq: number, events: readonly ChatEvent[], snapshot: ChatSnapshot, also?: () => void): StoredChatEvent[] {
    return this.write(sessionId, firstSeq, events, snapshot, this.clock.now(), also);
  }

  read(sessionId: string): StoredChatEvent[] {
    return this.q.bySession(sessionId).map(storedOf);
  }

  /**
   * Events after `after`, in order: at most `limit`, and no more once their stored JSON
   * reaches `maxChars` (only those are decoded). `full`: the page stopped at a bound, so
   * more may follow.
   */
  readPage(sessionId: string, after: number, limit: number, maxChars: number): { events: StoredChatEvent[]; full: boolean } {
    const events: StoredChatEvent[] = [];
    let chars = 0;
    for (const r of this.q.page(sessionId, after, limit)) {
      events.push(storedOf(r));
      chars += r.data.length;
      if (chars >= maxChars) return { events, full: true }; // leaving the loop ends the statement
    }
    return { events, full: events.length === limit };
  }

  row(id: string): ChatSessionRow | undefined {
    return this.q.session(id);
  }

  list(limit: number): ChatSessionRow[] {
    return this.q.sessions(limit);
  }

  runningIds(): string[] {
    return this.q.runningIds();
  }
}

function storedOf(r: ChatEventRow): StoredChatEvent {
  return { sessionId: r.session_id, seq: r.seq, at: r.at, event: chatEnvelope.decode(`chat session ${r.session_id} event ${r.seq}`, r.type, r.v, r.data) };
}

/** A session with no title is named after its first message. */
function titleOf(c: ChatContext): string {
  if (c.title !== '') return c.title;
  const first = (c.history[0]?.user ?? c.current?.text ?? '').replace(/\s+/g, ' ').trim();
  return first.length <= 80 ? first : `${first.slice(0, 79)}…`;
}

function rowOf(id: string, s: ChatSnapshot, lastSeq: number, at: number): ChatSessionRow {
  const c = s.context;
  return {
    id, agent: c.agent, title: titleOf(c), state: s.state, turns: c.current?.turn ?? 0, last_stop: c.current?.ended?.stop ?? null,
    budget_limit: c.current?.budget.limit ?? 0, budget_used: c.current?.budget.used ?? 0,
    input_tokens: c.totals.inputTokens, output_tokens: c.totals.outputTokens, model_calls: c.totals.calls,
    created_at: s.createdAt, updated_at: at, last_seq: lastSeq,
  };
}
