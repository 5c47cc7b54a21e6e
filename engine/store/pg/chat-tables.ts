/** The chat's tables on the Postgres store the nodes share (migration 7), appends in the node's transactions, a turn under its session's lease. */
import type { ChatLeases, ChatTables } from '../../chat/chat-tables.js';
import type { PgSession } from './session.js';
import { pgChatQueries } from './sql/chat.js';
import { pgStepSessionQueries } from './sql/step-sessions.js';

export function pgChatTables(s: PgSession, leases: ChatLeases): ChatTables {
  return {
    chat: pgChatQueries(s),
    stepSessions: pgStepSessionQueries(s),
    transaction: (fn) => s.transaction(fn),
    leases,
  };
}
