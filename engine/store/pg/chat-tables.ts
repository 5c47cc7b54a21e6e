/** The chat's tables on the Postgres store the nodes share (migration 7), appends in the node's transactions, a turn under its session's lease, its tokens relayed. */
import type { ChatLeases, ChatTables } from '../../chat/chat-tables.js';
import { CHANNELS } from './channels.js';
import type { PgChatTokens } from './chat-tokens.js';
import type { PgSession } from './session.js';
import { pgChatQueries } from './sql/chat.js';
import { pgStepSessionQueries } from './sql/step-sessions.js';

/** `nodeId`: this node's, in each announcement (a node does not hear its own). */
export function pgChatTables(s: PgSession, leases: ChatLeases, nodeId: string, tokens: PgChatTokens): ChatTables {
  return {
    chat: pgChatQueries(s),
    stepSessions: pgStepSessionQueries(s),
    transaction: (fn) => s.transaction(fn),
    leases,
    announce: (sessionId, firstSeq, lastSeq) => {
      // The tokens gathered first, in this transaction: every node hears them before the events after them.
      tokens.flush(sessionId);
      s.write(`SELECT pg_notify('${CHANNELS.chat}', $1)`, [`${nodeId} ${sessionId} ${firstSeq} ${lastSeq}`]);
    },
    relayToken: (token) => tokens.add(token),
  };
}
