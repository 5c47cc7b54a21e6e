/**
 * Adapters' inbound records (`adapter_messages`, `adapter_dedupe`, `adapter_sessions`,
 * `adapter_switches`, migration 11): one typed function per query, positional parameters,
 * typed rows. See engine/adapters/inbound.ts.
 */
import type { Database } from 'better-sqlite3';
import type { InboundState } from '../../adapters/types.js';

/** A row of `adapter_messages` as stored. */
export interface AdapterMessageRow {
  id: number;
  adapter: string;
  delivery_id: string;
  conversation: string;
  sender: string;
  text: string;
  /** JSON object. */
  reply_to: string;
  state: InboundState;
  session_id: string | null;
  turn: number | null;
  answer: string | null;
  reply_attempts: number;
  last_error: string | null;
  created_at: number;
  updated_at: number;
}

/** The newest operator switch of an adapter. */
export interface AdapterSwitchRow {
  adapter: string;
  enabled: 0 | 1;
  by: string;
  at: number;
}

type NewMessage = [adapter: string, deliveryId: string, conversation: string, sender: string, text: string, replyTo: string, at: number, updatedAt: number];

export function adapterQueries(db: Database) {
  const insert = db.prepare<NewMessage, { id: number }>(`INSERT INTO adapter_messages (adapter, delivery_id, conversation, sender, text, reply_to, state, created_at, updated_at)
    VALUES (?, ?, ?, ?, ?, ?, 'received', ?, ?) ON CONFLICT (adapter, delivery_id) DO NOTHING RETURNING id`);
  const byId = db.prepare<[id: number], AdapterMessageRow>('SELECT * FROM adapter_messages WHERE id = ?');
  const byDelivery = db.prepare<[adapter: string, deliveryId: string], AdapterMessageRow>('SELECT * FROM adapter_messages WHERE adapter = ? AND delivery_id = ?');
  const byKey = db.prepare<[adapter: string, key: string], AdapterMessageRow>(
    'SELECT m.* FROM adapter_dedupe d JOIN adapter_messages m ON m.id = d.message_id WHERE d.adapter = ? AND d.key = ?');
  const addKey = db.prepare<[adapter: string, key: string, messageId: number, at: number]>(
    'INSERT INTO adapter_dedupe (adapter, key, message_id, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (adapter, key) DO NOTHING');
  const pruneKeys = db.prepare<[before: number]>('DELETE FROM adapter_dedupe WHERE created_at < ?');
  const openConversations = db.prepare<[adapter: string], { conversation: string }>(
    "SELECT DISTINCT conversation FROM adapter_messages WHERE adapter = ? AND state IN ('received', 'answering', 'answered')");
  const nextOpen = db.prepare<[adapter: string, conversation: string], AdapterMessageRow>(
    "SELECT * FROM adapter_messages WHERE adapter = ? AND conversation = ? AND state IN ('received', 'answering', 'answered') ORDER BY id LIMIT 1");
  const answering = db.prepare<[sessionId: string, turn: number, at: number, id: number]>(
    "UPDATE adapter_messages SET state = 'answering', session_id = ?, turn = ?, updated_at = ? WHERE id = ?");
  const answered = db.prepare<[answer: string, at: number, id: number]>("UPDATE adapter_messages SET state = 'answered', answer = ?, updated_at = ? WHERE id = ?");
  const replyFailed = db.prepare<[error: string, at: number, id: number]>(
    'UPDATE adapter_messages SET reply_attempts = reply_attempts + 1, last_error = ?, updated_at = ? WHERE id = ?');
  const replied = db.prepare<[at: number, id: number]>("UPDATE adapter_messages SET state = 'replied', reply_attempts = reply_attempts + 1, updated_at = ? WHERE id = ?");
  const settle = db.prepare<[state: InboundState, error: string | null, at: number, id: number]>('UPDATE adapter_messages SET state = ?, last_error = ?, updated_at = ? WHERE id = ?');
  const lastActivity = db.prepare<[adapter: string], { at: number | null }>('SELECT max(updated_at) AS at FROM adapter_messages WHERE adapter = ?');
  const sessionOf = db.prepare<[adapter: string, conversation: string], { session_id: string }>(
    'SELECT session_id FROM adapter_sessions WHERE adapter = ? AND conversation = ?');
  const setSession = db.prepare<[adapter: string, conversation: string, sessionId: string, at: number]>(
    'INSERT INTO adapter_sessions (adapter, conversation, session_id, created_at) VALUES (?, ?, ?, ?)');
  const addSwitch = db.prepare<[adapter: string, enabled: 0 | 1, by: string, at: number]>('INSERT INTO adapter_switches (adapter, enabled, by, at) VALUES (?, ?, ?, ?)');
  const lastSwitch = db.prepare<[adapter: string], AdapterSwitchRow>(
    'SELECT adapter, enabled, by, at FROM adapter_switches WHERE adapter = ? ORDER BY id DESC LIMIT 1');
  return {
    /** `fn` in one transaction that holds the write lock from its start (accept's look-up and claim are one step). */
    transaction: <T>(fn: () => T): T => db.transaction(fn).immediate(),
    /** A new record in state `received`; undefined when the adapter already has that delivery id. */
    insert: (adapter: string, deliveryId: string, conversation: string, sender: string, text: string, replyTo: string, at: number): number | undefined =>
      insert.get(adapter, deliveryId, conversation, sender, text, replyTo, at, at)?.id,
    byId: (id: number): AdapterMessageRow | undefined => byId.get(id),
    byDelivery: (adapter: string, deliveryId: string): AdapterMessageRow | undefined => byDelivery.get(adapter, deliveryId),
    /** The record a dedupe key was taken by. */
    byKey: (adapter: string, key: string): AdapterMessageRow | undefined => byKey.get(adapter, key),
    addKey: (adapter: string, key: string, messageId: number, at: number): void => void addKey.run(adapter, key, messageId, at),
    /** Forget dedupe keys taken before `before` (delivery ids are kept with their records). */
    pruneKeys: (before: number): number => pruneKeys.run(before).changes,
    /** Conversations of the adapter with a message not yet settled. */
    openConversations: (adapter: string): string[] => openConversations.all(adapter).map((r) => r.conversation),
    /** The oldest message of the conversation not yet settled. */
    nextOpen: (adapter: string, conversation: string): AdapterMessageRow | undefined => nextOpen.get(adapter, conversation),
    /** The session and turn the message goes to, fixed before it is sent there. */
    answering: (id: number, sessionId: string, turn: number, at: number): void => void answering.run(sessionId, turn, at, id),
    answered: (id: number, answer: string, at: number): void => void answered.run(answer, at, id),
    /** A reply send failed: counted, with its error. */
    replyFailed: (id: number, error: string, at: number): void => void replyFailed.run(error, at, id),
    /** The reply was sent (counted as an attempt). */
    replied: (id: number, at: number): void => void replied.run(at, id),
    /** A final state without a send: `failed` (with the error), `ignored`, or `replied` for an adapter that answers in its request. */
    settle: (id: number, state: InboundState, error: string | null, at: number): void => void settle.run(state, error, at, id),
    lastActivity: (adapter: string): number | null => lastActivity.get(adapter)?.at ?? null,
    sessionOf: (adapter: string, conversation: string): string | undefined => sessionOf.get(adapter, conversation)?.session_id,
    setSession: (adapter: string, conversation: string, sessionId: string, at: number): void => void setSession.run(adapter, conversation, sessionId, at),
    addSwitch: (adapter: string, enabled: boolean, by: string, at: number): void => void addSwitch.run(adapter, enabled ? 1 : 0, by, at),
    lastSwitch: (adapter: string): AdapterSwitchRow | undefined => lastSwitch.get(adapter),
    /**
     * Take a conversation to answer its messages, across every node of the store: false while
     * another node has it. One node needs no more than its own one pump per conversation: always true.
     */
    holdConversation: (_adapter: string, _conversation: string): boolean => true,
    releaseConversation: (_adapter: string, _conversation: string): void => undefined,
  };
}

export type AdapterQueries = ReturnType<typeof adapterQueries>;
