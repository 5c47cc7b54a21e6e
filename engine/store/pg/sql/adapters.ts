/**
 * Adapters' inbound records on Postgres, shared by the nodes: the same functions as
 * ../../sql/adapters.ts. A transaction takes the commit-order lock (session.ts), so the
 * nodes' claims of one delivery take turns: the second finds the first's record (or its
 * dedupe key) and answers `duplicate`; the keys' primary keys and `ON CONFLICT` back it up.
 */
import type { AdapterMessageRow, AdapterQueries, AdapterSwitchRow } from '../../sql/adapters.js';
import type { PgSession } from '../session.js';

const OPEN = "('received', 'answering', 'answered')";
/** The advisory lock class of conversations being answered ("kwad" in ASCII). */
const CONVERSATION_LOCK_CLASS = 0x6b776164;
const conversationKey = (adapter: string, conversation: string): string => JSON.stringify([adapter, conversation]);

export function pgAdapterQueries(s: PgSession): AdapterQueries {
  return {
    transaction: (fn) => s.transaction(fn)(),
    insert: (adapter, deliveryId, conversation, sender, text, replyTo, at) => s.get<{ id: number }>(
      `INSERT INTO adapter_messages (adapter, delivery_id, conversation, sender, text, reply_to, state, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, 'received', $7, $7) ON CONFLICT (adapter, delivery_id) DO NOTHING RETURNING id`,
      [adapter, deliveryId, conversation, sender, text, replyTo, at])?.id,
    byId: (id) => s.get<AdapterMessageRow>('SELECT * FROM adapter_messages WHERE id = $1', [id]),
    byDelivery: (adapter, deliveryId) => s.get<AdapterMessageRow>('SELECT * FROM adapter_messages WHERE adapter = $1 AND delivery_id = $2', [adapter, deliveryId]),
    byKey: (adapter, key) => s.get<AdapterMessageRow>(
      'SELECT m.* FROM adapter_dedupe d JOIN adapter_messages m ON m.id = d.message_id WHERE d.adapter = $1 AND d.key = $2', [adapter, key]),
    addKey: (adapter, key, messageId, at) => s.write(
      'INSERT INTO adapter_dedupe (adapter, key, message_id, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (adapter, key) DO NOTHING', [adapter, key, messageId, at]),
    pruneKeys: (before) => s.count('DELETE FROM adapter_dedupe WHERE created_at < $1', [before]),
    openConversations: (adapter) => s.all<{ conversation: string }>(
      `SELECT DISTINCT conversation FROM adapter_messages WHERE adapter = $1 AND state IN ${OPEN}`, [adapter]).map((r) => r.conversation),
    nextOpen: (adapter, conversation) => s.get<AdapterMessageRow>(
      `SELECT * FROM adapter_messages WHERE adapter = $1 AND conversation = $2 AND state IN ${OPEN} ORDER BY id LIMIT 1`, [adapter, conversation]),
    answering: (id, sessionId, turn, at) => s.write("UPDATE adapter_messages SET state = 'answering', session_id = $1, turn = $2, updated_at = $3 WHERE id = $4", [sessionId, turn, at, id]),
    answered: (id, answer, at) => s.write("UPDATE adapter_messages SET state = 'answered', answer = $1, updated_at = $2 WHERE id = $3", [answer, at, id]),
    replyFailed: (id, error, at) => s.write('UPDATE adapter_messages SET reply_attempts = reply_attempts + 1, last_error = $1, updated_at = $2 WHERE id = $3', [error, at, id]),
    replied: (id, at) => s.write("UPDATE adapter_messages SET state = 'replied', reply_attempts = reply_attempts + 1, updated_at = $1 WHERE id = $2", [at, id]),
    settle: (id, state, error, at) => s.write('UPDATE adapter_messages SET state = $1, last_error = $2, updated_at = $3 WHERE id = $4', [state, error, at, id]),
    lastActivity: (adapter) => s.get<{ at: number | null }>('SELECT max(updated_at) AS at FROM adapter_messages WHERE adapter = $1', [adapter])?.at ?? null,
    sessionOf: (adapter, conversation) => s.get<{ session_id: string }>(
      'SELECT session_id FROM adapter_sessions WHERE adapter = $1 AND conversation = $2', [adapter, conversation])?.session_id,
    // Two nodes starting one conversation at once: the first session recorded is the conversation's (sessionOf reads it back).
    setSession: (adapter, conversation, sessionId, at) => s.write(
      'INSERT INTO adapter_sessions (adapter, conversation, session_id, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (adapter, conversation) DO NOTHING',
      [adapter, conversation, sessionId, at]),
    addSwitch: (adapter, enabled, by, at) => s.write('INSERT INTO adapter_switches (adapter, enabled, by, at) VALUES ($1, $2, $3, $4)', [adapter, enabled ? 1 : 0, by, at]),
    lastSwitch: (adapter) => s.get<AdapterSwitchRow>('SELECT adapter, enabled, by, at FROM adapter_switches WHERE adapter = $1 ORDER BY id DESC LIMIT 1', [adapter]),
    // A session-level advisory lock (class "kwad", the conversation's hash): released by releaseConversation, or by the server when the node's connection ends.
    holdConversation: (adapter, conversation) => s.get<{ ok: boolean }>(
      'SELECT pg_try_advisory_lock($1, hashtext($2)) AS ok', [CONVERSATION_LOCK_CLASS, conversationKey(adapter, conversation)])!.ok,
    releaseConversation: (adapter, conversation) => void s.get('SELECT pg_advisory_unlock($1, hashtext($2))', [CONVERSATION_LOCK_CLASS, conversationKey(adapter, conversation)]),
  };
}
