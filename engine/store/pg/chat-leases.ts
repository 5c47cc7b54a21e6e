/**
 * Chat leases on Postgres (migration 7): the node running each session's turn, at the
 * epoch it took, as run leases are (leases.ts). A turn claims its session (raising the
 * epoch), the node's heartbeat renews what it holds (PgLeases.heartbeat), the turn's end
 * releases it. Every append of a held session calls `kw_chat_fence` in its transaction, so
 * a node paused past its lease while another node took the turn over cannot write into
 * the session's log when it wakes. `adoptable` lists the turns under way whose node died
 * or stopped: another node goes on with them from their log (but an `agent` step's: the
 * node that takes its run over goes on with it).
 */
import { KowalskiError } from '../../../core/index.js';
import type { ChatLeases } from '../../chat/chat-tables.js';
import type { PgSession } from './session.js';
import type { SyncPg } from './sync-pg.js';

interface LeaseRow {
  node_id: string | null;
  epoch: number;
  live: boolean;
  url: string | null;
}

function busy(sessionId: string, nodeId: string | undefined, url: string | null | undefined): KowalskiError {
  const where = nodeId === undefined ? 'another node is taking it now' : `node ${nodeId}${url == null ? '' : ` (${url})`} is answering a turn of it`;
  return new KowalskiError('KW_ERR_CHAT_BUSY', `chat session ${sessionId} is busy: ${where}; send the next message when that turn has ended`);
}

export class PgChatLeases implements ChatLeases {
  /** Sessions this node holds → the epoch it took. */
  private readonly held = new Map<string, number>();

  constructor(private readonly pg: SyncPg, private readonly session: PgSession, private readonly options: { nodeId: string; ttlMs: number }) {}

  claim(sessionId: string): void {
    const { nodeId, ttlMs } = this.options;
    const epoch = this.pg.transaction(() => {
      // SKIP LOCKED: a row another node is claiming, or appending under (kw_chat_fence reads it FOR SHARE), is that node's.
      const row = this.pg.get<LeaseRow>(
        `SELECT l.node_id, l.epoch, (l.node_id IS NOT NULL AND l.expires_at > kw_now()) AS live, n.url
         FROM chat_leases l LEFT JOIN nodes n ON n.id = l.node_id WHERE l.session_id = $1 FOR UPDATE OF l SKIP LOCKED`, [sessionId]);
      if (row === undefined) {
        const inserted = this.pg.get<{ epoch: number }>(
          `INSERT INTO chat_leases (session_id, node_id, last_node, epoch, expires_at) VALUES ($1, $2, $2, 1, kw_now() + $3)
           ON CONFLICT (session_id) DO NOTHING RETURNING epoch`, [sessionId, nodeId, ttlMs]);
        if (inserted === undefined) throw busy(sessionId, undefined, undefined);
        return inserted.epoch;
      }
      if (row.live && row.node_id !== nodeId) throw busy(sessionId, row.node_id ?? undefined, row.url);
      const next = row.epoch + 1;
      this.pg.run('UPDATE chat_leases SET node_id = $2, last_node = $2, epoch = $3, expires_at = kw_now() + $4 WHERE session_id = $1', [sessionId, nodeId, next, ttlMs]);
      return next;
    })();
    this.held.set(sessionId, epoch);
  }

  holds(sessionId: string): boolean {
    return this.held.has(sessionId);
  }

  fence(sessionId: string): void {
    this.session.write('SELECT kw_chat_fence($1, $2, $3)', [this.options.nodeId, sessionId, this.held.get(sessionId) ?? -1]);
  }

  release(sessionId: string): void {
    const epoch = this.held.get(sessionId);
    if (epoch === undefined) return;
    this.held.delete(sessionId);
    this.session.write('UPDATE chat_leases SET node_id = NULL, expires_at = 0 WHERE session_id = $1 AND node_id = $2 AND epoch = $3', [sessionId, this.options.nodeId, epoch]);
  }

  adoptable(limit: number): string[] {
    return this.pg.all<{ id: string }>(
      `SELECT s.id FROM chat_sessions s LEFT JOIN chat_leases l ON l.session_id = s.id
       WHERE s.state = 'running' AND (l.session_id IS NULL OR l.node_id IS NULL OR l.expires_at <= kw_now())
         AND s.id NOT IN (SELECT session_id FROM step_sessions)
       ORDER BY s.updated_at LIMIT $1`, [limit]).map((r) => r.id);
  }
}
