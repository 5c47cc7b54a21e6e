/**
 * Where the chat keeps its sessions: the chat tables' queries, `step_sessions`' and the
 * transaction an append runs in — the data folder's SQLite (one node), or the Postgres
 * database several nodes share (store/pg/chat-tables.ts), where a turn also holds the
 * session's lease (`leases`), so one node at a time runs it.
 */
import type { Database } from 'better-sqlite3';
import type { ChatToken } from '../../contract/frames.js';
import { chatQueries } from '../store/sql/chat.js';
import type { ChatQueries } from '../store/sql/chat.js';
import { stepSessionQueries } from '../store/sql/step-sessions.js';
import type { StepSessionQueries } from '../store/sql/step-sessions.js';

/** The node running each session's turn, on a store several nodes share (store/pg/chat-leases.ts). */
export interface ChatLeases {
  /** Take the session for a turn on this node (raising its epoch). KW_ERR_CHAT_BUSY, naming the node, while another live node runs a turn of it. */
  claim(sessionId: string): void;
  /** Whether this node holds the session (it claimed it and has not released it). */
  holds(sessionId: string): boolean;
  /** Inside an append's transaction: the whole append is refused (KW409) when the session is no longer this node's at the epoch it took. */
  fence(sessionId: string): void;
  /** The turn ended here: the session is free for any node. */
  release(sessionId: string): void;
  /** Sessions with a turn under way that no live node holds (their node died, or stopped), oldest first; not an `agent` step's (its run's adoption goes on with it). */
  adoptable(limit: number): string[];
}

export interface ChatTables {
  readonly chat: ChatQueries;
  readonly stepSessions: StepSessionQueries;
  /** `fn` in one transaction; a call inside a running one joins it. */
  transaction<A extends unknown[], T>(fn: (...args: A) => T): (...args: A) => T;
  /** Absent: one node (SQLite), whose sessions are all its own. */
  readonly leases?: ChatLeases;
  /** Inside an append's transaction: the other nodes hear at its commit that the session's log grew by these events (their clients follow it live). */
  announce?(sessionId: string, firstSeq: number, lastSeq: number): void;
  /** A token of a turn this node runs: the other nodes' clients following the session see it too. */
  relayToken?(token: ChatToken): void;
}

export function sqliteChatTables(db: Database): ChatTables {
  return {
    chat: chatQueries(db),
    stepSessions: stepSessionQueries(db),
    transaction: (fn) => db.transaction(fn),
  };
}
